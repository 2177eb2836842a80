import { useGetEmbedSettings, useUpdateEmbedSettings } from '@tessera/client/react';
import { type FormEvent, useState } from 'react';
import { Card, PageHeader } from '../layout/page.tsx';
import { ErrorState, LoadingState } from '../layout/states.tsx';
import { CheckboxField, Field } from '../ui/field.tsx';
import { noProblems, type Problems, problemsOf } from '../ui/problems.ts';
import { EmbedTenantsCard } from './embed-tenants.tsx';
import './settings-admin.css';

interface EmbedSettings {
  enabled: boolean;
  frameAncestors: string[];
  showDashboardChat: boolean;
}

/**
 * `/settings/embedding` (admin; issue 22 item 8, spec 4.3): whether dashboards may be embedded,
 * the origins allowed to frame them, and the embed tenants with their groups.
 */
export function EmbeddingPage() {
  const settings = useGetEmbedSettings();
  return (
    <>
      <PageHeader
        title="Embedding"
        subtitle="Dashboards inside your own product: who may frame them, and your customers' tenants."
      />
      {settings.data ? (
        <EmbedSettingsForm settings={settings.data} />
      ) : settings.isError ? (
        <ErrorState error={settings.error} onRetry={() => settings.refetch()} />
      ) : (
        <LoadingState label="Loading embedding settings…" />
      )}
      <EmbedTenantsCard />
    </>
  );
}

/**
 * The problem of the allowed origins: the server names the entry (`frameAncestors/2`), the page
 * names its line, since they are edited one per line.
 */
function originsProblem(fields: Record<string, string>): string | undefined {
  for (const [field, message] of Object.entries(fields)) {
    const entry = /^frameAncestors(?:\/(\d+))?$/.exec(field);
    if (entry) return entry[1] === undefined ? message : `Line ${Number(entry[1]) + 1} ${message}`;
  }
  return undefined;
}

function EmbedSettingsForm({ settings }: { settings: EmbedSettings }) {
  const [enabled, setEnabled] = useState(settings.enabled);
  const [showDashboardChat, setShowDashboardChat] = useState(settings.showDashboardChat);
  const [origins, setOrigins] = useState(settings.frameAncestors.join('\n'));
  const [problems, setProblems] = useState<Problems>(noProblems);
  const [saved, setSaved] = useState('');
  const update = useUpdateEmbedSettings({
    onSuccess: () => setSaved('The embedding settings are saved.'),
    onError: (error) => setProblems(problemsOf(error)),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setProblems(noProblems);
    setSaved('');
    const frameAncestors = origins
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean);
    update.mutate({ body: { enabled, showDashboardChat, frameAncestors } });
  };
  return (
    <Card title="Embedding settings">
      <form onSubmit={submit} noValidate className="settings-form">
        <CheckboxField
          label="Embedding on"
          checked={enabled}
          onChange={setEnabled}
          problem={problems.fields.enabled}
          hint="Off: no new embed sessions, and the open ones stop working."
        />
        <CheckboxField
          label="Chat beside embedded dashboards"
          checked={showDashboardChat}
          onChange={setShowDashboardChat}
          problem={problems.fields.showDashboardChat}
          hint="What a session gets when it does not say."
        />
        <Field
          label="Allowed origins"
          multiline
          value={origins}
          onChange={setOrigins}
          problem={originsProblem(problems.fields)}
          hint="One per line, e.g. https://app.example.com or https://*.example.com: the pages that may frame the dashboards."
        />
        <button type="submit" className="button button-primary" disabled={update.isPending}>
          {update.isPending ? 'Saving…' : 'Save embedding settings'}
        </button>
        {problems.other && (
          <p className="form-error" role="alert">
            It could not be saved: {problems.other}
          </p>
        )}
        <p className="form-status notice" role="status">
          {saved}
        </p>
      </form>
    </Card>
  );
}
