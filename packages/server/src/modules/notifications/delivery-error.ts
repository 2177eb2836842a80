/**
 * A send that failed, with whether trying again later can help. Shared by every channel
 * (channels.ts, signed-webhook.ts) and every module that delivers through them (notifications,
 * alerts), so that each retry policy reads the same flag.
 */
export class DeliveryError extends Error {
  constructor(
    message: string,
    /** false: retrying cannot help (no SMTP configured, a refused address, a 4xx answer). */
    readonly retryable = true,
  ) {
    super(message);
  }
}
