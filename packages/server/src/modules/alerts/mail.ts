import type { Static } from 'typebox';
import type { AlertRow } from '../../db/schema.ts';
import type { PlainMail } from '../notifications/channels.ts';
import type { AlertCondition, AlertQuery } from './schemas.ts';

const number = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
const format = (v: number | null) => (v === null ? 'no value' : number.format(v));

/** What the condition says, in words: "above 100", "changed by more than 20% against the previous month". */
export function conditionText(alert: Pick<AlertRow, 'condition' | 'query'>): string {
  const c = alert.condition as Static<typeof AlertCondition>;
  const q = alert.query as Static<typeof AlertQuery>;
  if (c.type === 'changeBy')
    return `changed by more than ${c.percent}% against the previous ${q.timeDimension?.granularity ?? 'period'}`;
  return `${c.type} ${format(c.threshold ?? null)}`;
}

/** The mail of an alert that fired: the value read, the condition, and when. */
export function alertMail(
  alert: AlertRow,
  reading: { value: number | null; previousValue: number | null },
  at: { deliveryId: string; checkedAt: Date; publicUrl: string },
): PlainMail {
  const q = alert.query as Static<typeof AlertQuery>;
  const condition = conditionText(alert);
  const change =
    reading.previousValue === null
      ? ''
      : ` (previous ${q.timeDimension?.granularity ?? 'period'}: ${format(reading.previousValue)})`;
  const when = `${at.checkedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const line = `${q.measure} is ${format(reading.value)}${change}: ${condition}.`;
  const note =
    'You will not hear about this alert again until its condition stops holding and then holds again.';
  const html = (s: string) =>
    s.replace(
      /[&<>"']/g,
      (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
    );
  return {
    subject: `Alert: ${alert.name}`,
    deliveryId: at.deliveryId,
    headers: { 'X-Tessera-Alert': String(alert.id), 'X-Tessera-Delivery': at.deliveryId },
    text: `${alert.name}\n\n${line}\nChecked at ${when}.\n\n${note}\n${at.publicUrl}\n`,
    html:
      `<p><strong>${html(alert.name)}</strong></p><p>${html(line)}</p><p>Checked at ${html(when)}.</p>` +
      `<p style="color:#555">${html(note)}</p>`,
  };
}
