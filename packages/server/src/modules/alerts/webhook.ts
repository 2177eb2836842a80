import type { Static } from 'typebox';
import type { AlertRow } from '../../db/schema.ts';
import { conditionText } from './mail.ts';
import type { AlertCondition, AlertQuery } from './schemas.ts';

/**
 * The JSON an alert's webhook recipient receives when the condition starts to hold (issue 23
 * item 6: "delivered through the same channels"), signed by notifications/signed-webhook.ts as
 * notification webhooks are. `deliveryId` (also the `Tessera-Delivery` header) is the same on
 * every retry of one crossing, so a receiver can drop a duplicate.
 */
export function alertWebhookBody(
  alert: AlertRow,
  reading: { value: number | null; previousValue: number | null },
  at: { deliveryId: string; checkId: number; checkedAt: Date; publicUrl: string },
): string {
  const query = alert.query as Static<typeof AlertQuery>;
  return JSON.stringify({
    type: 'alert.fired',
    deliveryId: at.deliveryId,
    alertId: alert.id,
    alertName: alert.name,
    deploymentId: alert.deployment_id,
    checkId: at.checkId,
    measure: query.measure,
    value: reading.value,
    previousValue: reading.previousValue,
    granularity: query.timeDimension?.granularity ?? null,
    condition: alert.condition as Static<typeof AlertCondition>,
    conditionText: conditionText(alert),
    checkedAt: at.checkedAt.toISOString(),
    url: at.publicUrl,
  });
}
