import { useGetEnvVariables, useSetEnvVariables } from '@tessera/client/react';
import { useState } from 'react';
import { describeError } from '../api/errors.ts';
import { PageHeader } from '../layout/page.tsx';
import { useSignedInUser } from '../session/session.tsx';
import { ConfirmDialog } from '../ui/confirm-dialog.tsx';
import { Field } from '../ui/field.tsx';
import { FormDialog, useFormDialog, useListDialogs } from '../ui/form-dialog.tsx';
import { SettingsList } from '../ui/settings-list.tsx';
import { DeploymentChoice } from './deployment-choice.tsx';
import './settings-admin.css';

interface EnvVariable {
  name: string;
}

/**
 * `/settings/env-variables` (issue 22 items 4 and 8; reference group Env Variables): a
 * deployment's variables, which data-source settings use as `${NAME}`. Values are write-only:
 * encrypted at rest and never shown, so the page lists names and sets or removes values. The API
 * lets developers read the names and only admins change them; the page offers what the user may do.
 */
export function EnvVariablesPage() {
  return (
    <>
      <PageHeader
        title="Env variables"
        subtitle={
          <>
            Secrets for a deployment's data-source settings, used there as{' '}
            {/* biome-ignore lint/suspicious/noTemplateCurlyInString: the reference syntax, shown literally */}
            <code>{'${NAME}'}</code>.
          </>
        }
      />
      <DeploymentChoice label="Variables of deployment">
        {(deploymentId) => <VariablesOf deploymentId={deploymentId} />}
      </DeploymentChoice>
    </>
  );
}

function VariablesOf({ deploymentId }: { deploymentId: number }) {
  const admin = useSignedInUser().role === 'admin';
  const variables = useGetEnvVariables({ params: { path: { deploymentId }, query: { first: 1000 } } });
  const dialogs = useListDialogs<EnvVariable>();
  return (
    <>
      {admin && (
        <div className="settings-toolbar">
          <button type="button" className="button button-primary" onClick={() => dialogs.setEditing('new')}>
            Add variable
          </button>
        </div>
      )}
      {dialogs.message && (
        <p className="notice" role="status">
          {dialogs.message}
        </p>
      )}
      <SettingsList
        label="Env variables"
        query={variables}
        items={variables.data?.items}
        keyOf={(variable) => variable.name}
        nameOf={(variable) => variable.name}
        details={() => 'Value set, never shown'}
        empty="No env variables on this deployment yet."
        onEdit={admin ? dialogs.setEditing : undefined}
        onDelete={admin ? dialogs.setDeleting : undefined}
      />
      {dialogs.editing && (
        <VariableDialog
          deploymentId={deploymentId}
          variable={dialogs.editing === 'new' ? null : dialogs.editing}
          onDone={dialogs.done}
          onClose={() => dialogs.setEditing(null)}
        />
      )}
      {dialogs.deleting && (
        <DeleteVariableDialog
          deploymentId={deploymentId}
          variable={dialogs.deleting}
          onDone={dialogs.done}
          onClose={() => dialogs.setDeleting(null)}
        />
      )}
    </>
  );
}

/** Sets a variable: a new one, or a new value for one (its old value is never shown). */
function VariableDialog(props: {
  deploymentId: number;
  variable: EnvVariable | null;
  onDone: (message: string) => void;
  onClose: () => void;
}) {
  const old = props.variable;
  const { form, set, problems, fields, onError, handleSubmit, setProblems } = useFormDialog(() => ({
    name: old?.name ?? '',
    value: '',
  }));
  const save = useSetEnvVariables({ onSuccess: () => props.onDone(`Set ${form.name.trim()}.`), onError });
  const submit = handleSubmit((f) => {
    // An empty value removes a variable: here it would be a silent delete, so it is asked for.
    if (f.value === '') {
      setProblems({ fields: { 'env_variables/0/value': 'is required' }, other: null });
      return;
    }
    save.mutate({
      params: { path: { deploymentId: props.deploymentId } },
      body: { env_variables: [{ name: f.name.trim(), value: f.value }] },
    });
  });
  return (
    <FormDialog
      title={old ? `New value for ${old.name}` : 'Add env variable'}
      onClose={props.onClose}
      onSubmit={submit}
      pending={save.isPending}
      problems={problems}
    >
      <Field
        label="Name"
        value={form.name}
        onChange={set('name')}
        problem={fields['env_variables/0/name']}
        disabled={old !== null}
        autoFocus={old === null}
        hint="Letters, digits and _, not starting with a digit, e.g. WAREHOUSE_PASSWORD."
      />
      <Field
        label="Value"
        type="password"
        autoComplete="off"
        value={form.value}
        onChange={set('value')}
        problem={fields['env_variables/0/value']}
        autoFocus={old !== null}
        hint={
          old ? 'Replaces the stored value, which is never shown.' : 'Stored encrypted; never shown again.'
        }
      />
    </FormDialog>
  );
}

function DeleteVariableDialog(props: {
  deploymentId: number;
  variable: EnvVariable;
  onDone: (message: string) => void;
  onClose: () => void;
}) {
  const [problem, setProblem] = useState<string | null>(null);
  const remove = useSetEnvVariables({
    onSuccess: () => props.onDone(`Deleted ${props.variable.name}.`),
    onError: (error) => setProblem(describeError(error)),
  });
  return (
    <ConfirmDialog
      title={`Delete ${props.variable.name}?`}
      description={`Data-source settings that use \${${props.variable.name}} stop working until it is set again.`}
      action="Delete"
      pendingAction="Deleting…"
      pending={remove.isPending}
      onConfirm={() =>
        remove.mutate({
          params: { path: { deploymentId: props.deploymentId } },
          // The API removes a variable set to the empty value.
          body: { env_variables: [{ name: props.variable.name, value: '' }] },
        })
      }
      problem={problem}
      onClose={props.onClose}
    />
  );
}
