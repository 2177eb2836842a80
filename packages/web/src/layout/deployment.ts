/**
 * Which deployment the app shows: the one in the address (`/workspace/{id}`, `/dashboards/{id}`),
 * else the one last chosen on this browser, else the first the API lists.
 */
const storageKey = 'tessera.deploymentId';

export function rememberDeployment(deploymentId: number) {
  try {
    window.localStorage.setItem(storageKey, String(deploymentId));
  } catch {
    // Storage refused (private mode, quota): the choice is just not remembered.
  }
}

export function rememberedDeployment(): number | null {
  try {
    const value = Number(window.localStorage.getItem(storageKey));
    return Number.isInteger(value) && value > 0 ? value : null;
  } catch {
    return null;
  }
}

/** A path parameter as a deployment or item id, or null when it is not a positive integer. */
export function idParam(value: string | undefined): number | null {
  if (value === undefined || !/^[1-9]\d{0,9}$/.test(value)) return null;
  const id = Number(value);
  return id <= 2147483647 ? id : null;
}
