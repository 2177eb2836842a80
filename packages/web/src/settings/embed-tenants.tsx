import { useCreateEmbedTenant, useDeleteEmbedTenant, useListEmbedTenants } from '@tessera/client/react';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { describeError } from '../api/errors.ts';
import { Card } from '../layout/page.tsx';
import { ConfirmDialog } from '../ui/confirm-dialog.tsx';
import { Field } from '../ui/field.tsx';
import { FormDialog, useFormDialog, useListDialogs } from '../ui/form-dialog.tsx';
import { SettingsList } from '../ui/settings-list.tsx';
import { EmbedGroupsCard } from './embed-groups.tsx';

interface EmbedTenant {
  id: number;
  name: string;
  displayName: string | null;
  userCount: number;
}

const usersOf = (count: number) => (count === 1 ? '1 user' : `${count} users`);

/**
 * The embed tenants (reference group Embed Tenants): one per customer of yours whose users see
 * embedded dashboards. Sessions create them on demand; here an admin adds, renames and deletes
 * them, and opens one's groups (the tenant in the address, `?tenant=`, to link to).
 */
export function EmbedTenantsCard() {
  const tenants = useListEmbedTenants({ params: { query: { first: 100 } } });
  const dialogs = useListDialogs<EmbedTenant>();
  const [search, setSearch] = useSearchParams();
  const open = search.get('tenant');
  return (
    <>
      <Card
        title="Embed tenants"
        actions={
          <button type="button" className="button button-primary" onClick={() => dialogs.setEditing('new')}>
            Add tenant
          </button>
        }
      >
        {dialogs.message && (
          <p className="notice" role="status">
            {dialogs.message}
          </p>
        )}
        <SettingsList
          label="Embed tenants"
          query={tenants}
          items={tenants.data?.items}
          keyOf={(tenant) => tenant.id}
          nameOf={(tenant) => tenant.name}
          details={(tenant) => [tenant.displayName, usersOf(tenant.userCount)].filter(Boolean).join(' · ')}
          empty="No embed tenants yet."
          emptyHint="Embed sessions create them too, from their embedTenantName."
          actions={(tenant) => (
            <button
              type="button"
              className="button button-secondary"
              aria-pressed={open === tenant.name}
              onClick={() => setSearch({ tenant: tenant.name }, { replace: true })}
            >
              Groups<span className="visually-hidden"> of {tenant.name}</span>
            </button>
          )}
          onEdit={dialogs.setEditing}
          onDelete={dialogs.setDeleting}
        />
      </Card>
      {open && <EmbedGroupsCard tenantName={open} />}
      {dialogs.editing && (
        <TenantDialog
          tenant={dialogs.editing === 'new' ? null : dialogs.editing}
          onDone={dialogs.done}
          onClose={() => dialogs.setEditing(null)}
        />
      )}
      {dialogs.deleting && (
        <DeleteTenantDialog
          tenant={dialogs.deleting}
          // Its groups close as the delete starts: asked for again once it is gone, they would be a 404.
          onConfirm={() => {
            if (open === dialogs.deleting?.name) setSearch({}, { replace: true });
          }}
          onDone={dialogs.done}
          onClose={() => dialogs.setDeleting(null)}
        />
      )}
    </>
  );
}

/** Adds a tenant, or changes its display name (its name is how sessions name it: fixed). */
function TenantDialog(props: {
  tenant: EmbedTenant | null;
  onDone: (message: string) => void;
  onClose: () => void;
}) {
  const old = props.tenant;
  const { form, set, problems, fields, onError, handleSubmit } = useFormDialog(() => ({
    name: old?.name ?? '',
    displayName: old?.displayName ?? '',
  }));
  const save = useCreateEmbedTenant({
    onSuccess: (tenant) => props.onDone(old ? `Saved ${tenant.name}.` : `Added ${tenant.name}.`),
    onError,
  });
  return (
    <FormDialog
      title={old ? `Edit ${old.name}` : 'Add embed tenant'}
      onClose={props.onClose}
      onSubmit={handleSubmit((f) =>
        save.mutate({ body: { name: f.name.trim(), displayName: f.displayName.trim() || null } }),
      )}
      pending={save.isPending}
      problems={problems}
    >
      <Field
        label="Name"
        value={form.name}
        onChange={set('name')}
        problem={fields.name}
        disabled={old !== null}
        autoFocus={old === null}
        hint="Lowercase letters, digits and hyphens, as your embed sessions send it."
      />
      <Field
        label="Display name"
        value={form.displayName}
        onChange={set('displayName')}
        problem={fields.displayName}
        autoFocus={old !== null}
      />
    </FormDialog>
  );
}

function DeleteTenantDialog(props: {
  tenant: EmbedTenant;
  onConfirm: () => void;
  onDone: (message: string) => void;
  onClose: () => void;
}) {
  const [problem, setProblem] = useState<string | null>(null);
  const remove = useDeleteEmbedTenant({
    onSuccess: () => props.onDone(`Deleted ${props.tenant.name}.`),
    onError: (error) => setProblem(describeError(error)),
  });
  return (
    <ConfirmDialog
      title={`Delete ${props.tenant.name}?`}
      description={`Its ${usersOf(props.tenant.userCount)}, groups, sessions and shares go with it. This cannot be undone.`}
      action="Delete"
      pendingAction="Deleting…"
      pending={remove.isPending}
      onConfirm={() => {
        props.onConfirm();
        remove.mutate({ params: { path: { embedTenantName: props.tenant.name } } });
      }}
      problem={problem}
      onClose={props.onClose}
    />
  );
}
