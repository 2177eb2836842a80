import {
  useCreateEmbedGroup,
  useDeleteEmbedGroup,
  useGetEmbedGroups,
  useUpdateEmbedGroup,
} from '@tessera/client/react';
import { useState } from 'react';
import { describeError } from '../api/errors.ts';
import { Card } from '../layout/page.tsx';
import { ConfirmDialog } from '../ui/confirm-dialog.tsx';
import { Field } from '../ui/field.tsx';
import { FormDialog, useFormDialog, useListDialogs } from '../ui/form-dialog.tsx';
import { SettingsList } from '../ui/settings-list.tsx';

interface EmbedGroup {
  id: number;
  name: string;
  description: string | null;
  userCount: number | null;
}

const membersOf = (count: number | null) => (count === 1 ? '1 member' : `${count ?? 0} members`);

/**
 * One embed tenant's groups (reference: the embed group operations): what its users are placed in
 * (`tenantGroups` of a session), and what dashboards are shared with.
 */
export function EmbedGroupsCard({ tenantName }: { tenantName: string }) {
  const path = { embedTenantName: tenantName };
  const groups = useGetEmbedGroups({ params: { path, query: { first: 100 } } });
  const dialogs = useListDialogs<EmbedGroup>();
  return (
    <Card
      title={`Groups of ${tenantName}`}
      actions={
        <button type="button" className="button button-primary" onClick={() => dialogs.setEditing('new')}>
          Add group
        </button>
      }
    >
      {dialogs.message && (
        <p className="notice" role="status">
          {dialogs.message}
        </p>
      )}
      <SettingsList
        label={`Groups of ${tenantName}`}
        query={groups}
        items={groups.data?.items}
        keyOf={(group) => group.id}
        nameOf={(group) => group.name}
        details={(group) => [group.description, membersOf(group.userCount)].filter(Boolean).join(' · ')}
        empty="No groups in this tenant yet."
        onEdit={dialogs.setEditing}
        onDelete={dialogs.setDeleting}
      />
      {dialogs.editing && (
        <GroupDialog
          tenantName={tenantName}
          group={dialogs.editing === 'new' ? null : dialogs.editing}
          onDone={dialogs.done}
          onClose={() => dialogs.setEditing(null)}
        />
      )}
      {dialogs.deleting && (
        <DeleteGroupDialog
          tenantName={tenantName}
          group={dialogs.deleting}
          onDone={dialogs.done}
          onClose={() => dialogs.setDeleting(null)}
        />
      )}
    </Card>
  );
}

/** Adds a group, or changes its description (a group's name is fixed: sessions name it). */
function GroupDialog(props: {
  tenantName: string;
  group: EmbedGroup | null;
  onDone: (message: string) => void;
  onClose: () => void;
}) {
  const old = props.group;
  const { form, set, problems, fields, onError, handleSubmit } = useFormDialog(() => ({
    name: old?.name ?? '',
    description: old?.description ?? '',
  }));
  const create = useCreateEmbedGroup({ onSuccess: (g) => props.onDone(`Added ${g.name}.`), onError });
  const update = useUpdateEmbedGroup({ onSuccess: (g) => props.onDone(`Saved ${g.name}.`), onError });
  const submit = handleSubmit((f) => {
    const embedTenantName = props.tenantName;
    if (old)
      update.mutate({
        params: { path: { embedTenantName, id: old.id } },
        body: { description: f.description.trim() },
      });
    else
      create.mutate({
        params: { path: { embedTenantName } },
        body: { name: f.name.trim(), description: f.description.trim() || null },
      });
  });
  return (
    <FormDialog
      title={old ? `Edit ${old.name}` : `Add group to ${props.tenantName}`}
      onClose={props.onClose}
      onSubmit={submit}
      pending={create.isPending || update.isPending}
      problems={problems}
    >
      <Field
        label="Name"
        value={form.name}
        onChange={set('name')}
        problem={fields.name}
        disabled={old !== null}
        autoFocus={old === null}
      />
      <Field
        label="Description"
        value={form.description}
        onChange={set('description')}
        problem={fields.description}
        autoFocus={old !== null}
      />
    </FormDialog>
  );
}

function DeleteGroupDialog(props: {
  tenantName: string;
  group: EmbedGroup;
  onDone: (message: string) => void;
  onClose: () => void;
}) {
  const [problem, setProblem] = useState<string | null>(null);
  const remove = useDeleteEmbedGroup({
    onSuccess: () => props.onDone(`Deleted ${props.group.name}.`),
    onError: (error) => setProblem(describeError(error)),
  });
  return (
    <ConfirmDialog
      title={`Delete ${props.group.name}?`}
      description="Dashboards shared with it are no longer shared with its users. Only a group without members can go."
      action="Delete"
      pendingAction="Deleting…"
      pending={remove.isPending}
      onConfirm={() =>
        remove.mutate({ params: { path: { embedTenantName: props.tenantName, id: props.group.id } } })
      }
      problem={problem}
      onClose={props.onClose}
    />
  );
}
