import { createHmac } from 'node:crypto';
import { DeliveryError } from './delivery-error.ts';

/**
 * The signed webhook POST every module sends through (notifications' files, alerts' crossings):
 * the JSON body signed as `Tessera-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`
 * with the recipient's secret (the scheme of Stripe's webhooks: the timestamp inside the signature
 * lets a receiver refuse replays older than it tolerates). `Tessera-Timestamp` repeats the
 * timestamp; `Tessera-Delivery` is the delivery's stable id, the same on every retry, so that a
 * receiver can drop a duplicate.
 */

export interface WebhookTarget {
  url: string;
  secret: string;
}

export function signedHeaders(secret: string, deliveryId: string, body: string, now: Date) {
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': 'Tessera-Webhook/1',
    'tessera-delivery': deliveryId,
    'tessera-timestamp': String(timestamp),
    'tessera-signature': `t=${timestamp},v1=${webhookSignature(secret, timestamp, body)}`,
  };
}

export function webhookSignature(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

/**
 * POSTs the body, signed now. Throws DeliveryError: retryable when the endpoint could not be
 * reached or answered 5xx, 408 or 429 (RFC 9110 section 15: the server's trouble, or "later"); not
 * retryable for any other answer outside 2xx (a 4xx says the request itself is refused, and a
 * redirect is not followed). Messages name neither the URL nor the secret.
 */
export async function postSignedWebhook(
  target: WebhookTarget,
  deliveryId: string,
  body: string,
  timeoutMs = 30_000,
): Promise<void> {
  let response: Response;
  try {
    response = await fetch(target.url, {
      method: 'POST',
      headers: signedHeaders(target.secret, deliveryId, body, new Date()),
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    throw new DeliveryError(`Webhook: ${cause ?? (error as Error).name ?? 'request failed'}`);
  }
  await response.arrayBuffer().catch(() => undefined);
  const status = response.status;
  if (status >= 200 && status <= 299) return;
  const retryable = status >= 500 || status === 408 || status === 429;
  throw new DeliveryError(`Webhook: the endpoint answered ${status}`, retryable);
}

/**
 * A webhook URL as every module takes it: http or https, with no credentials in it (they would be
 * shown wherever the URL is). Answers the problem, or null.
 */
export function webhookUrlProblem(url: string): string | null {
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    parsed = null;
  }
  if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || parsed.username || parsed.password)
    return 'must be an http or https URL without credentials';
  return null;
}
