/** Shared by every benchmark: how many times to measure, and the median of what was measured. */
export const iterations = Number(process.env.TESSERA_BENCH_ITERATIONS ?? 15);

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}
