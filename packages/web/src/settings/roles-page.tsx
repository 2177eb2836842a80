import type { SuccessBody } from '@tessera/client';
import {
  useCreateRole,
  useDeleteRole,
  useGetDeployments,
  useGetRoles,
  useUpdateRole,
} from '@tessera/client/react';
import { type FormEvent, useState } from 'react';
import { PageHeader } from '../layout/page.tsx';
import { ConfirmDialog } from '../ui/confirm-dialog.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { Field, SelectField } from '../ui/field.tsx';
import { noProblems, type Problems, problemsOf } from '../ui/problems.ts';
import { SettingsList } from '../ui/settings-list.tsx';

type Role = SuccessBody<'/api/v1/roles', 'get'>['items'][number];
type Policy = Role['policies'][number];
type Tier = 'none' | 'view' | 'develop';

const tierOptions = [
  { value: 'none', label: 'Nothing account-wide (only the deployments below)' },
  { value: 'view', label: 'Viewer everywhere' },
  { value: 'develop', label: 'Developer everywhere' },
] as const satisfies readonly { value: Tier; label: string }[];

/** The console's Base Role: the tier a role's `Global` policy names. */
function tierOf(role: Role): Tier {
  const global = role.policies.find((p) => p.resourceType === 'Global');
  if (!global) return 'none';
  return global.actions.some((a) => a === 'AIBIDevelop' || a === 'AIBIDeveloper' || a === 'All')
    ? 'develop'
    : 'view';
}

/** The deployments a role lets its holders build on (a `Deployment` policy). */
function deploymentsOf(role: Role): Set<string> {
  return new Set(role.policies.filter((p) => p.resourceType === 'Deployment').flatMap((p) => p.resources));
}

function policiesFor(tier: Tier, deployments: Set<string>): Policy[] {
  const policies: Policy[] = [];
  if (tier !== 'none')
    policies.push({
      resourceType: 'Global',
      actions: [tier === 'develop' ? 'AIBIDevelop' : 'AIBIView'],
      resources: ['All'],
    });
  if (deployments.size > 0)
    policies.push({
      resourceType: 'Deployment',
      actions: ['DeploymentRead', 'SchemaRead', 'SchemaUpdate', 'WorkbookEdit', 'ReportEdit'],
      resources: [...deployments],
    });
  return policies;
}

function summary(role: Role, names: Map<string, string>): string {
  const tier = tierOf(role);
  const parts = tier === 'none' ? [] : [tier === 'develop' ? 'Developer everywhere' : 'Viewer everywhere'];
  const on = [...deploymentsOf(role)].map((id) =>
    id === 'All' ? 'every deployment' : (names.get(id) ?? `#${id}`),
  );
  if (on.length > 0) parts.push(`builds on ${on.join(', ')}`);
  return parts.join('; ') || 'Grants nothing yet';
}

/**
 * Settings › Roles (issue 22 item 8): custom roles, each an account-wide tier and the deployments
 * its holders may build on; assigned to users on the Users page. Built-in roles (Admin, Developer,
 * Viewer) are a user's own role there and are not listed.
 */
export function RolesPage() {
  const roles = useGetRoles(
    { params: { query: { first: 1000 } } },
    { placeholderData: (previous) => previous },
  );
  const deployments = useGetDeployments({ params: { query: { first: 1000 } } });
  const names = new Map((deployments.data?.items ?? []).map((d) => [String(d.id), d.name]));
  const [dialog, setDialog] = useState<
    { kind: 'edit'; role: Role | null } | { kind: 'delete'; role: Role } | null
  >(null);
  const [status, setStatus] = useState('');
  const done = (message: string) => {
    setDialog(null);
    setStatus(message);
  };
  return (
    <>
      <PageHeader
        title="Roles"
        subtitle="Custom roles add to a user's own role: account-wide, or on the deployments you choose."
        actions={
          <button
            type="button"
            className="button button-primary"
            onClick={() => setDialog({ kind: 'edit', role: null })}
          >
            New role
          </button>
        }
      />
      <p className="visually-hidden" role="status" aria-live="polite">
        {status}
      </p>
      {status && <p className="notice">{status}</p>}
      <SettingsList
        label="Roles"
        query={roles}
        items={roles.data?.items}
        keyOf={(role) => role.id}
        nameOf={(role) => role.name}
        details={(role) => [role.description, summary(role, names)].filter(Boolean).join(' · ')}
        empty="No custom roles yet."
        emptyHint="Every user has their own role: Admin, Developer or Viewer."
        onEdit={(role) => setDialog({ kind: 'edit', role })}
        onDelete={(role) => setDialog({ kind: 'delete', role })}
      />
      {dialog?.kind === 'edit' && (
        <RoleDialog
          role={dialog.role}
          deployments={deployments.data?.items ?? []}
          onDone={done}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.kind === 'delete' && (
        <DeleteRoleDialog role={dialog.role} onDone={done} onClose={() => setDialog(null)} />
      )}
    </>
  );
}

interface DialogProps {
  onDone: (message: string) => void;
  onClose: () => void;
}

function RoleDialog({
  role,
  deployments,
  onDone,
  onClose,
}: DialogProps & { role: Role | null; deployments: { id: number; name: string }[] }) {
  const [name, setName] = useState(role?.name ?? '');
  const [description, setDescription] = useState(role?.description ?? '');
  const [tier, setTier] = useState<Tier>(role ? tierOf(role) : 'view');
  const [chosen, setChosen] = useState<Set<string>>(role ? deploymentsOf(role) : new Set());
  const [problems, setProblems] = useState<Problems>(noProblems);
  const onError = (error: unknown) => setProblems(problemsOf(error));
  const create = useCreateRole({ onSuccess: (r) => onDone(`Created the role ${r.name}.`), onError });
  const update = useUpdateRole({ onSuccess: (r) => onDone(`Saved the role ${r.name}.`), onError });
  const pending = create.isPending || update.isPending;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setProblems(noProblems);
    const body = {
      name: name.trim(),
      description: description.trim() || null,
      policies: policiesFor(tier, chosen),
    };
    if (role) update.mutate({ params: { path: { roleId: role.id } }, body });
    else create.mutate({ body });
  };
  const toggle = (id: string, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(id);
    else next.delete(id);
    setChosen(next);
  };
  return (
    <Dialog
      title={role ? `Edit ${role.name}` : 'New role'}
      onClose={onClose}
      onSubmit={submit}
      buttons={(close) => (
        <>
          <button type="button" className="button button-secondary" onClick={close}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={pending}>
            {pending ? 'Saving…' : role ? 'Save' : 'Create'}
          </button>
        </>
      )}
    >
      <Field label="Name" value={name} onChange={setName} problem={problems.fields.name} autoFocus />
      <Field
        label="Description"
        value={description}
        onChange={setDescription}
        problem={problems.fields.description}
      />
      <SelectField label="Account-wide" value={tier} options={tierOptions} onChange={setTier} />
      {deployments.length > 0 && (
        <fieldset className="checkbox-group">
          <legend>Developer on these deployments</legend>
          {deployments.map((d) => (
            <label key={d.id}>
              <input
                type="checkbox"
                checked={chosen.has(String(d.id))}
                onChange={(e) => toggle(String(d.id), e.target.checked)}
              />{' '}
              {d.name}
            </label>
          ))}
        </fieldset>
      )}
      {(problems.other || problems.fields.policies) && (
        <p className="form-error" role="alert">
          It could not be saved: {problems.other ?? problems.fields.policies}
        </p>
      )}
    </Dialog>
  );
}

function DeleteRoleDialog({ role, onDone, onClose }: DialogProps & { role: Role }) {
  const [problem, setProblem] = useState<string | null>(null);
  const remove = useDeleteRole({
    onSuccess: () => onDone(`Deleted the role ${role.name}.`),
    onError: (error) => setProblem(problemsOf(error).other ?? 'The server refused it.'),
  });
  return (
    <ConfirmDialog
      title={`Delete ${role.name}?`}
      description="Everyone who holds it loses what it grants, at once."
      action="Delete"
      pendingAction="Deleting…"
      pending={remove.isPending}
      onConfirm={() => remove.mutate({ params: { path: { roleId: role.id } } })}
      problem={problem}
      onClose={onClose}
    />
  );
}
