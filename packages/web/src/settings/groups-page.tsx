import { useQueryClient } from '@tanstack/react-query';
import type { SuccessBody } from '@tessera/client';
import {
  useAddGroupMember,
  useCreateGroup,
  useDeleteGroup,
  useListGroupMembers,
  useListGroups,
  useListUsers,
  useRemoveGroupMember,
  useUpdateGroup,
} from '@tessera/client/react';
import { type FormEvent, useId, useState } from 'react';
import { PageHeader } from '../layout/page.tsx';
import { ErrorState, LoadingState } from '../layout/states.tsx';
import { ConfirmDialog } from '../ui/confirm-dialog.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { Field } from '../ui/field.tsx';
import { noProblems, type Problems, problemsOf } from '../ui/problems.ts';
import { SettingsList } from '../ui/settings-list.tsx';
import { displayName } from './users-page.tsx';

type Group = SuccessBody<'/api/v1/groups', 'get'>['items'][number];

/**
 * Settings › Groups (issue 22 item 8): the account's groups (usable in access policies as
 * `serviceCloud.groups`) and their members.
 */
export function GroupsPage() {
  const groups = useListGroups(
    { params: { query: { first: 1000 } } },
    { placeholderData: (previous) => previous },
  );
  const [dialog, setDialog] = useState<
    | { kind: 'edit'; group: Group | null }
    | { kind: 'members'; group: Group }
    | { kind: 'delete'; group: Group }
    | null
  >(null);
  const [status, setStatus] = useState('');
  const done = (message: string) => {
    setDialog(null);
    setStatus(message);
  };
  return (
    <>
      <PageHeader
        title="Groups"
        subtitle="Groups of users, for sharing content and in data access rules."
        actions={
          <button
            type="button"
            className="button button-primary"
            onClick={() => setDialog({ kind: 'edit', group: null })}
          >
            New group
          </button>
        }
      />
      <p className="visually-hidden" role="status" aria-live="polite">
        {status}
      </p>
      {status && <p className="notice">{status}</p>}
      <SettingsList
        label="Groups"
        query={groups}
        items={groups.data?.items}
        keyOf={(group) => group.id}
        nameOf={(group) => group.name}
        details={(group) =>
          [group.description, group.userCount === 1 ? '1 member' : `${group.userCount} members`]
            .filter(Boolean)
            .join(' · ')
        }
        empty="No groups yet."
        actions={(group) => (
          <button
            type="button"
            className="button button-secondary"
            aria-label={`Members of ${group.name}`}
            onClick={() => setDialog({ kind: 'members', group })}
          >
            Members
          </button>
        )}
        onEdit={(group) => setDialog({ kind: 'edit', group })}
        onDelete={(group) => setDialog({ kind: 'delete', group })}
      />
      {dialog?.kind === 'edit' && (
        <GroupDialog group={dialog.group} onDone={done} onClose={() => setDialog(null)} />
      )}
      {dialog?.kind === 'members' && <MembersDialog group={dialog.group} onClose={() => setDialog(null)} />}
      {dialog?.kind === 'delete' && (
        <DeleteGroupDialog group={dialog.group} onDone={done} onClose={() => setDialog(null)} />
      )}
    </>
  );
}

interface DialogProps {
  onDone: (message: string) => void;
  onClose: () => void;
}

function GroupDialog({ group, onDone, onClose }: DialogProps & { group: Group | null }) {
  const [name, setName] = useState(group?.name ?? '');
  const [description, setDescription] = useState(group?.description ?? '');
  const [problems, setProblems] = useState<Problems>(noProblems);
  const onError = (error: unknown) => setProblems(problemsOf(error));
  const create = useCreateGroup({ onSuccess: (g) => onDone(`Created the group ${g.name}.`), onError });
  const update = useUpdateGroup({ onSuccess: (g) => onDone(`Saved the group ${g.name}.`), onError });
  const pending = create.isPending || update.isPending;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setProblems(noProblems);
    const body = { name: name.trim(), description: description.trim() || null };
    if (group) update.mutate({ params: { path: { groupId: group.id } }, body });
    else create.mutate({ body });
  };
  return (
    <Dialog
      title={group ? `Edit ${group.name}` : 'New group'}
      onClose={onClose}
      onSubmit={submit}
      buttons={(close) => (
        <>
          <button type="button" className="button button-secondary" onClick={close}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={pending}>
            {pending ? 'Saving…' : group ? 'Save' : 'Create'}
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
        multiline
      />
      {problems.other && (
        <p className="form-error" role="alert">
          It could not be saved: {problems.other}
        </p>
      )}
    </Dialog>
  );
}

function MembersDialog({ group, onClose }: { group: Group; onClose: () => void }) {
  const path = { groupId: group.id };
  const members = useListGroupMembers({ params: { path } });
  const users = useListUsers({ params: { query: { first: 1000 } } });
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['/api/v1/groups'] });
  const [problem, setProblem] = useState<string | null>(null);
  const onError = (error: unknown) => setProblem(problemsOf(error).other ?? 'The server refused it.');
  const add = useAddGroupMember({ onSuccess: refresh, onError });
  const remove = useRemoveGroupMember({ onSuccess: refresh, onError });
  const [chosen, setChosen] = useState('');
  const selectId = useId();
  const byId = new Map((users.data?.items ?? []).map((u) => [u.id, u]));
  const memberIds = new Set((members.data?.items ?? []).map((m) => m.userId));
  const candidates = (users.data?.items ?? []).filter((u) => !memberIds.has(u.id));
  const label = (id: number) => {
    const user = byId.get(id);
    return user ? `${displayName(user)} (${user.email})` : `User ${id}`;
  };
  return (
    <Dialog
      title={`Members of ${group.name}`}
      onClose={onClose}
      onSubmit={(event) => {
        event.preventDefault();
        setProblem(null);
        if (chosen) add.mutate({ params: { path }, body: { userId: Number(chosen) } });
        setChosen('');
      }}
      buttons={(close) => (
        <button type="button" className="button button-primary" onClick={close}>
          Done
        </button>
      )}
    >
      {members.isPending ? (
        <LoadingState label="Loading members…" />
      ) : members.isError ? (
        <ErrorState error={members.error} onRetry={() => members.refetch()} />
      ) : memberIds.size === 0 ? (
        <p className="muted">No members yet.</p>
      ) : (
        <ul className="settings-list" aria-label={`Members of ${group.name}`}>
          {[...memberIds].map((id) => (
            <li key={id}>
              <span className="settings-list-text">{label(id)}</span>
              <button
                type="button"
                className="button button-ghost"
                aria-label={`Remove ${label(id)}`}
                disabled={remove.isPending}
                onClick={() => remove.mutate({ params: { path: { groupId: group.id, userId: id } } })}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="field member-add">
        <label htmlFor={selectId}>Add a member</label>
        <div className="member-add-row">
          <select id={selectId} value={chosen} onChange={(e) => setChosen(e.target.value)}>
            <option value="">Choose a user…</option>
            {candidates.map((u) => (
              <option key={u.id} value={u.id}>
                {displayName(u)} ({u.email})
              </option>
            ))}
          </select>
          <button type="submit" className="button button-secondary" disabled={!chosen || add.isPending}>
            Add
          </button>
        </div>
      </div>
      {problem && (
        <p className="form-error" role="alert">
          {problem}
        </p>
      )}
    </Dialog>
  );
}

function DeleteGroupDialog({ group, onDone, onClose }: DialogProps & { group: Group }) {
  const [problem, setProblem] = useState<string | null>(null);
  const remove = useDeleteGroup({
    onSuccess: () => onDone(`Deleted the group ${group.name}.`),
    onError: (error) => setProblem(problemsOf(error).other ?? 'The server refused it.'),
  });
  return (
    <ConfirmDialog
      title={`Delete ${group.name}?`}
      description="Its members stay; what was shared with the group no longer is."
      action="Delete"
      pendingAction="Deleting…"
      pending={remove.isPending}
      onConfirm={() => remove.mutate({ params: { path: { groupId: group.id } } })}
      problem={problem}
      onClose={onClose}
    />
  );
}
