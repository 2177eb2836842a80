import { useCreateAlert } from '@tessera/client/react';
import { Field, SelectField } from '../ui/field.tsx';
import { FormDialog, useFormDialog } from '../ui/form-dialog.tsx';
import type { SemanticQuery } from './types.ts';

type ConditionType = 'above' | 'below' | 'changeBy';
const granularities = ['second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'] as const;
type Granularity = (typeof granularities)[number];

/** The tile's first time dimension with a standard granularity: the periods `changeBy` compares. */
function periodsOf(query: SemanticQuery) {
  const td = query.timeDimensions?.find((t) => granularities.includes(t.granularity as Granularity));
  return td ? { dimension: td.dimension, granularity: td.granularity as Granularity } : null;
}

/**
 * "Create alert" from a tile's menu (issue 23 item 6): one of the tile's measures, a condition
 * (above or below a threshold, or a change against the previous period when the tile has periods)
 * and who is told: an address mailed, and or a webhook (URL and signing secret) that receives a
 * signed JSON POST, checked hourly or daily under the creator's security context. The server
 * names any bad field; it is shown beside that field. Measures are offered by the titles the tile
 * shows; once created, the dialog closes and the tile says so (`onCreated`).
 */
export function AlertDialog(props: {
  deploymentId: number;
  title: string;
  query: SemanticQuery;
  /** The tile's column titles by member, as its table shows them. */
  titles: Record<string, string>;
  defaultEmail: string;
  onClose: () => void;
  onCreated: (message: string) => void;
}) {
  const measures = props.query.measures ?? [];
  const periods = periodsOf(props.query);
  const { form, set, problems, fields, onError, handleSubmit } = useFormDialog(() => ({
    name: props.title ? `${props.title} alert` : 'Alert',
    measure: measures[0] ?? '',
    type: 'above' as ConditionType,
    amount: '',
    email: props.defaultEmail,
    webhookUrl: '',
    webhookSecret: '',
    scheduleType: 'DAILY' as 'HOURLY' | 'DAILY',
  }));
  const create = useCreateAlert({
    onSuccess: (alert) => props.onCreated(`Alert “${alert.name}” created: ${alert.humanReadableSchedule}.`),
    onError,
  });
  // The recipients as sent: the webhook's index depends on whether an address is given.
  const email = form.email.trim();
  const hook = email === '' ? 0 : 1;
  const submit = handleSubmit((f) => {
    const amount = f.amount.trim() === '' ? null : Number(f.amount);
    const url = f.webhookUrl.trim();
    create.mutate({
      params: { path: { deploymentId: props.deploymentId } },
      body: {
        name: f.name.trim(),
        query: {
          measure: f.measure,
          ...(f.type === 'changeBy' && periods ? { timeDimension: periods } : {}),
        },
        condition:
          f.type === 'changeBy' ? { type: 'changeBy', percent: amount } : { type: f.type, threshold: amount },
        scheduleType: f.scheduleType,
        recipients: [
          ...(f.email.trim() === '' ? [] : [{ email: f.email.trim() }]),
          ...(url === '' ? [] : [{ url, secret: f.webhookSecret === '' ? null : f.webhookSecret }]),
        ],
      },
    });
  });
  const conditions: { value: ConditionType; label: string }[] = [
    { value: 'above', label: 'Goes above' },
    { value: 'below', label: 'Goes below' },
    ...(periods
      ? [
          {
            value: 'changeBy' as const,
            label: `Changes by more than N% against the previous ${periods.granularity}`,
          },
        ]
      : []),
  ];
  return (
    <FormDialog
      title="Create alert"
      description="Tells once when the condition starts to hold, and again only after it stopped holding."
      onClose={props.onClose}
      onSubmit={submit}
      pending={create.isPending}
      problems={problems}
      submitLabel="Create alert"
      pendingLabel="Creating…"
    >
      <Field label="Name" value={form.name} onChange={set('name')} problem={fields.name} autoFocus />
      <SelectField
        label="Measure"
        value={form.measure}
        options={measures.map((m) => ({ value: m, label: props.titles[m] ?? m }))}
        onChange={set('measure')}
        problem={fields['query/measure']}
      />
      <SelectField label="When it" value={form.type} options={conditions} onChange={set('type')} />
      <Field
        label={form.type === 'changeBy' ? 'Percent' : 'Threshold'}
        type="number"
        value={form.amount}
        onChange={set('amount')}
        problem={
          fields['condition/threshold'] ?? fields['condition/percent'] ?? fields['query/timeDimension']
        }
      />
      <SelectField
        label="Check"
        value={form.scheduleType}
        options={[
          { value: 'HOURLY', label: 'Every hour' },
          { value: 'DAILY', label: 'Every day' },
        ]}
        onChange={set('scheduleType')}
      />
      <Field
        label="Email to"
        type="email"
        value={form.email}
        onChange={set('email')}
        problem={fields['recipients/0/email'] ?? fields['recipients/0'] ?? fields.recipients}
      />
      <Field
        label="Webhook URL"
        type="url"
        value={form.webhookUrl}
        onChange={set('webhookUrl')}
        placeholder="https://example.com/hooks/tessera"
        hint="Optional: also POST a signed JSON to this address when the alert fires."
        problem={fields[`recipients/${hook}/url`] ?? fields[`recipients/${hook}`]}
      />
      <Field
        label="Webhook secret"
        type="password"
        value={form.webhookSecret}
        onChange={set('webhookSecret')}
        hint="Signs each POST (HMAC-SHA256, as notification webhooks); 16 characters or more. Never shown again."
        problem={fields[`recipients/${hook}/secret`]}
      />
    </FormDialog>
  );
}
