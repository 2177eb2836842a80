import { useGetTenantSettings, useListRegions, useUpdateTenantSettings } from '@tessera/client/react';
import './settings-admin.css';
import { type FormEvent, useState } from 'react';
import { Card, PageHeader } from '../layout/page.tsx';
import { ErrorState, LoadingState } from '../layout/states.tsx';
import { CheckboxField, Field, SelectField } from '../ui/field.tsx';
import { noProblems, type Problems, problemsOf } from '../ui/problems.ts';
import { SettingsList } from '../ui/settings-list.tsx';

const weekdays = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
type Weekday = (typeof weekdays)[number];
const dayOptions = weekdays.map((day) => ({ value: day, label: day[0]?.toUpperCase() + day.slice(1) }));

interface TenantSettings {
  auditLogEnabled: boolean;
  auditLogRetentionDays: number;
  hasSupportAccess: boolean;
  useAIBIUserInterface: boolean;
  maintenanceWindowEnabled: boolean;
  maintenanceWindowDay: Weekday;
  maintenanceWindowTime: string;
  oidcEnabled: boolean;
}

/**
 * `/settings/tenant` (admin; issue 22 items 4 and 8): the account-wide switches of the reference's
 * Tenant Settings group, saved together, with the server's problems beside their fields; and the
 * regions this server serves (read only: they are its configuration).
 */
export function TenantSettingsPage() {
  const settings = useGetTenantSettings();
  return (
    <>
      <PageHeader title="Tenant settings" subtitle="Switches for the whole account, and where it runs." />
      {settings.data ? (
        <TenantSettingsForm settings={settings.data} />
      ) : settings.isError ? (
        <ErrorState error={settings.error} onRetry={() => settings.refetch()} />
      ) : (
        <LoadingState label="Loading tenant settings…" />
      )}
      <RegionsCard />
    </>
  );
}

/** The form's text for the retention (the API's days; 0 keeps entries forever). */
type TenantForm = Omit<TenantSettings, 'auditLogRetentionDays'> & { auditLogRetentionDays: string };

/** The fields an admin sets: the read-only ones (`auditLogEnabledCurrent`…) are refused by the PUT. */
function editable(settings: TenantSettings): TenantForm {
  return {
    auditLogEnabled: settings.auditLogEnabled,
    auditLogRetentionDays: String(settings.auditLogRetentionDays ?? 0),
    hasSupportAccess: settings.hasSupportAccess,
    useAIBIUserInterface: settings.useAIBIUserInterface,
    maintenanceWindowEnabled: settings.maintenanceWindowEnabled,
    maintenanceWindowDay: settings.maintenanceWindowDay,
    maintenanceWindowTime: settings.maintenanceWindowTime,
    oidcEnabled: settings.oidcEnabled,
  };
}

function TenantSettingsForm({ settings }: { settings: TenantSettings }) {
  const [form, setForm] = useState<TenantForm>(() => editable(settings));
  const [problems, setProblems] = useState<Problems>(noProblems);
  const [saved, setSaved] = useState('');
  const set =
    <K extends keyof TenantForm>(name: K) =>
    (value: TenantForm[K]) =>
      setForm((old) => ({ ...old, [name]: value }));
  const update = useUpdateTenantSettings({
    onSuccess: (stored) => {
      setForm(editable(stored));
      setSaved('The tenant settings are saved.');
    },
    onError: (error) => setProblems(problemsOf(error)),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setProblems(noProblems);
    setSaved('');
    // A retention that is no whole number goes as it is, so that the API's problem names the field.
    const days = form.auditLogRetentionDays.trim();
    const retention = /^-?\d+$/.test(days) ? Number(days) : (days as unknown as number);
    update.mutate({
      body: {
        ...form,
        auditLogRetentionDays: retention,
        maintenanceWindowTime: form.maintenanceWindowTime.trim(),
      },
    });
  };
  const fields = problems.fields;
  return (
    <Card title="Account">
      <form onSubmit={submit} noValidate className="settings-form">
        <CheckboxField
          label="Record the audit log"
          checked={form.auditLogEnabled}
          onChange={set('auditLogEnabled')}
          problem={fields.auditLogEnabled}
          hint="Who changed what and when, for every management change (Settings › Audit log)."
        />
        <Field
          label="Keep audit entries for (days)"
          type="number"
          value={form.auditLogRetentionDays}
          onChange={set('auditLogRetentionDays')}
          problem={fields.auditLogRetentionDays}
          hint="Older entries are deleted; 0 keeps them forever."
        />
        <CheckboxField
          label="Sign-in with the identity provider"
          checked={form.oidcEnabled}
          onChange={set('oidcEnabled')}
          problem={fields.oidcEnabled}
          hint="Users may sign in through the OpenID provider set on the server."
        />
        <CheckboxField
          label="Support access"
          checked={form.hasSupportAccess}
          onChange={set('hasSupportAccess')}
          problem={fields.hasSupportAccess}
          hint="Lets the support team look at this account while they help you."
        />
        <CheckboxField
          label="AI-first interface"
          checked={form.useAIBIUserInterface}
          onChange={set('useAIBIUserInterface')}
          problem={fields.useAIBIUserInterface}
          hint="Chat is the first thing users see."
        />
        <fieldset className="settings-fieldset">
          <legend>Maintenance window</legend>
          <CheckboxField
            label="Updates only in the maintenance window"
            checked={form.maintenanceWindowEnabled}
            onChange={set('maintenanceWindowEnabled')}
            problem={fields.maintenanceWindowEnabled}
          />
          <SelectField
            label="Day"
            value={form.maintenanceWindowDay}
            options={dayOptions}
            onChange={set('maintenanceWindowDay')}
            problem={fields.maintenanceWindowDay}
          />
          <Field
            label="Start (UTC)"
            value={form.maintenanceWindowTime}
            onChange={set('maintenanceWindowTime')}
            problem={fields.maintenanceWindowTime}
            hint="HH:MM, 24-hour, e.g. 02:00."
            placeholder="02:00"
          />
        </fieldset>
        <button type="submit" className="button button-primary" disabled={update.isPending}>
          {update.isPending ? 'Saving…' : 'Save settings'}
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

/** The regions of the reference's Regions group: this server's configuration, to read only. */
function RegionsCard() {
  const regions = useListRegions({ params: { query: { first: 100 } } });
  return (
    <Card title="Regions">
      <p className="muted">
        Where this server serves data: a deployment's data API is at{' '}
        <code>{'{deployment}.{region}.<host>'}</code>.
      </p>
      <SettingsList
        label="Regions"
        query={regions}
        items={regions.data?.items}
        keyOf={(region) => region.id}
        nameOf={(region) => region.name}
        details={(region) =>
          [region.title, region.provider, region.isDedicated ? 'dedicated' : null]
            .filter(Boolean)
            .join(' · ') || 'No description'
        }
        empty="This server serves no region."
      />
    </Card>
  );
}
