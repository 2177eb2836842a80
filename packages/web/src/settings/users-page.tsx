import { useQueryClient } from '@tanstack/react-query';
import type { SuccessBody } from '@tessera/client';
import {
  useAssignRoleToUser,
  useCreateUser,
  useGetRoles,
  useListUsers,
  useRemoveRoleFromUser,
  useUpdateUser,
} from '@tessera/client/react';
import { type FormEvent, useState } from 'react';
import { PageHeader } from '../layout/page.tsx';
import { EmptyState, ErrorState, LoadingState } from '../layout/states.tsx';
import { useSignedInUser } from '../session/session.tsx';
import { ConfirmDialog } from '../ui/confirm-dialog.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { Field, SelectField } from '../ui/field.tsx';
import { noProblems, type Problems, problemsOf } from '../ui/problems.ts';

type User = SuccessBody<'/api/v1/users', 'get'>['items'][number];
type AccountRole = User['role'];
type RoleRef = { id: number; name: string };

export const roleOptions = [
  { value: 'viewer', label: 'Viewer: reads dashboards and reports' },
  { value: 'developer', label: 'Developer: builds models, workbooks and dashboards' },
  { value: 'admin', label: 'Admin: everything, users and settings included' },
] as const satisfies readonly { value: AccountRole; label: string }[];

const roleNames: Record<AccountRole, string> = { viewer: 'Viewer', developer: 'Developer', admin: 'Admin' };

export function displayName(user: Pick<User, 'firstName' | 'lastName' | 'username'>): string {
  return [user.firstName, user.lastName].filter(Boolean).join(' ') || user.username;
}

/**
 * Settings › Users (issue 22 item 8): every user of the account with their role and state; an
 * admin invites users, edits their names, email, role and custom roles, and deactivates them
 * (which ends their sessions and revokes their keys at once) or activates them again.
 */
export function UsersPage() {
  const me = useSignedInUser();
  const users = useListUsers(
    { params: { query: { first: 1000 } } },
    { placeholderData: (previous) => previous },
  );
  const [dialog, setDialog] = useState<
    { kind: 'invite' } | { kind: 'edit'; user: User } | { kind: 'deactivate'; user: User } | null
  >(null);
  const [status, setStatus] = useState('');
  const update = useUpdateUser({
    onSuccess: (user) =>
      setStatus(`${displayName(user)} is ${user.isDeactivated ? 'deactivated' : 'active'} again.`),
    onError: (error) => setStatus(`It could not be changed: ${problemsOf(error).other ?? 'see the form'}`),
  });
  const done = (message: string) => {
    setDialog(null);
    setStatus(message);
  };
  const list = users.data?.items ?? [];
  return (
    <>
      <PageHeader
        title="Users"
        subtitle="Who can sign in to this account, and what they may do."
        actions={
          <button
            type="button"
            className="button button-primary"
            onClick={() => setDialog({ kind: 'invite' })}
          >
            Invite user
          </button>
        }
      />
      <p className="visually-hidden" role="status" aria-live="polite">
        {status}
      </p>
      {status && <p className="notice">{status}</p>}
      {users.isPending ? (
        <LoadingState label="Loading users…" />
      ) : users.isError && !users.data ? (
        <ErrorState error={users.error} onRetry={() => users.refetch()} />
      ) : list.length === 0 ? (
        <EmptyState title="No users yet." />
      ) : (
        <ul className="settings-list" aria-label="Users">
          {list.map((user) => (
            <li key={user.id} className={user.isDeactivated ? 'is-inactive' : undefined}>
              <div className="settings-list-text">
                <span className="settings-list-name">{displayName(user)}</span>
                <span className="muted">{user.email}</span>
                <span className="settings-list-tags">
                  <span className="tag">{roleNames[user.role]}</span>
                  {(user.roles ?? []).map((r) => (
                    <span key={r.id} className="tag tag-muted">
                      {r.name}
                    </span>
                  ))}
                  {user.isDeactivated && <span className="tag tag-danger">Deactivated</span>}
                </span>
              </div>
              <div className="settings-list-actions">
                <button
                  type="button"
                  className="button button-secondary"
                  aria-label={`Edit ${displayName(user)}`}
                  onClick={() => setDialog({ kind: 'edit', user })}
                >
                  Edit
                </button>
                {user.id !== me.id &&
                  (user.isDeactivated ? (
                    <button
                      type="button"
                      className="button button-secondary"
                      aria-label={`Activate ${displayName(user)}`}
                      disabled={update.isPending}
                      onClick={() =>
                        update.mutate({ params: { path: { id: user.id } }, body: { isDeactivated: false } })
                      }
                    >
                      Activate
                    </button>
                  ) : (
                    <button
                      type="button"
                      className="button button-ghost"
                      aria-label={`Deactivate ${displayName(user)}`}
                      onClick={() => setDialog({ kind: 'deactivate', user })}
                    >
                      Deactivate
                    </button>
                  ))}
              </div>
            </li>
          ))}
        </ul>
      )}
      {dialog?.kind === 'invite' && <InviteDialog onDone={done} onClose={() => setDialog(null)} />}
      {dialog?.kind === 'edit' && (
        <EditUserDialog user={dialog.user} onDone={done} onClose={() => setDialog(null)} />
      )}
      {dialog?.kind === 'deactivate' && (
        <DeactivateDialog user={dialog.user} onDone={done} onClose={() => setDialog(null)} />
      )}
    </>
  );
}

interface DialogProps {
  onDone: (message: string) => void;
  onClose: () => void;
}

function InviteDialog({ onDone, onClose }: DialogProps) {
  const [email, setEmail] = useState('');
  const [firstName, setFirstName] = useState('');
  const [lastName, setLastName] = useState('');
  const [role, setRole] = useState<AccountRole>('viewer');
  const [password, setPassword] = useState('');
  const [problems, setProblems] = useState<Problems>(noProblems);
  const create = useCreateUser({
    onSuccess: (user) => onDone(`${displayName(user)} can now sign in as ${user.email}.`),
    onError: (error) => setProblems(problemsOf(error)),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setProblems(noProblems);
    create.mutate({
      body: {
        email: email.trim(),
        username: email.trim(),
        firstName: firstName.trim() || null,
        lastName: lastName.trim() || null,
        role,
        password: password || null,
      },
    });
  };
  return (
    <Dialog
      title="Invite user"
      description="They sign in with this email and the password you give them, and can change it in their profile."
      onClose={onClose}
      onSubmit={submit}
      buttons={(close) => (
        <>
          <button type="button" className="button button-secondary" onClick={close}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={create.isPending}>
            {create.isPending ? 'Inviting…' : 'Invite'}
          </button>
        </>
      )}
    >
      <Field
        label="Email"
        type="email"
        value={email}
        onChange={setEmail}
        problem={problems.fields.email ?? problems.fields.username}
        autoFocus
      />
      <Field
        label="Given name"
        value={firstName}
        onChange={setFirstName}
        problem={problems.fields.firstName}
      />
      <Field label="Family name" value={lastName} onChange={setLastName} problem={problems.fields.lastName} />
      <SelectField
        label="Role"
        value={role}
        options={roleOptions}
        onChange={setRole}
        problem={problems.fields.role}
      />
      <Field
        label="Initial password"
        type="password"
        autoComplete="new-password"
        value={password}
        onChange={setPassword}
        problem={problems.fields.password}
      />
      {problems.other && (
        <p className="form-error" role="alert">
          The user could not be invited: {problems.other}
        </p>
      )}
    </Dialog>
  );
}

function EditUserDialog({ user, onDone, onClose }: DialogProps & { user: User }) {
  const me = useSignedInUser();
  const [email, setEmail] = useState(user.email);
  const [firstName, setFirstName] = useState(user.firstName ?? '');
  const [lastName, setLastName] = useState(user.lastName ?? '');
  const [role, setRole] = useState<AccountRole>(user.role);
  const held = new Set((user.roles ?? []).map((r) => r.id));
  const [chosen, setChosen] = useState<Set<number>>(held);
  const [problems, setProblems] = useState<Problems>(noProblems);
  const customRoles = useGetRoles({ params: { query: { first: 1000 } } });
  const queryClient = useQueryClient();
  const assign = useAssignRoleToUser();
  const remove = useRemoveRoleFromUser();
  const update = useUpdateUser({ onError: (error) => setProblems(problemsOf(error)) });
  const pending = update.isPending || assign.isPending || remove.isPending;
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setProblems(noProblems);
    try {
      const saved = await update.mutateAsync({
        params: { path: { id: user.id } },
        body: {
          ...(email.trim() !== user.email ? { email: email.trim() } : {}),
          firstName: firstName.trim() || null,
          lastName: lastName.trim() || null,
          ...(role !== user.role ? { role } : {}),
        },
      });
      for (const r of customRoles.data?.items ?? []) {
        const path = { roleId: r.id, userId: user.id };
        if (chosen.has(r.id) && !held.has(r.id)) await assign.mutateAsync({ params: { path } });
        if (!chosen.has(r.id) && held.has(r.id)) await remove.mutateAsync({ params: { path } });
      }
      await queryClient.invalidateQueries({ queryKey: ['/api/v1/users'] });
      onDone(`Saved ${displayName(saved)}.`);
    } catch (error) {
      setProblems(problemsOf(error));
    }
  };
  const toggle = (r: RoleRef, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(r.id);
    else next.delete(r.id);
    setChosen(next);
  };
  const roles = customRoles.data?.items ?? [];
  return (
    <Dialog
      title={`Edit ${displayName(user)}`}
      onClose={onClose}
      onSubmit={submit}
      buttons={(close) => (
        <>
          <button type="button" className="button button-secondary" onClick={close}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={pending}>
            {pending ? 'Saving…' : 'Save'}
          </button>
        </>
      )}
    >
      <Field
        label="Email"
        type="email"
        value={email}
        onChange={setEmail}
        problem={problems.fields.email}
        autoFocus
      />
      <Field
        label="Given name"
        value={firstName}
        onChange={setFirstName}
        problem={problems.fields.firstName}
      />
      <Field label="Family name" value={lastName} onChange={setLastName} problem={problems.fields.lastName} />
      {user.id === me.id ? (
        <p className="muted">Your own role is changed by another admin.</p>
      ) : (
        <SelectField
          label="Role"
          value={role}
          options={roleOptions}
          onChange={setRole}
          problem={problems.fields.role}
        />
      )}
      {roles.length > 0 && (
        <fieldset className="checkbox-group">
          <legend>Custom roles</legend>
          {roles.map((r) => (
            <label key={r.id}>
              <input
                type="checkbox"
                checked={chosen.has(r.id)}
                onChange={(e) => toggle(r, e.target.checked)}
              />{' '}
              {r.name}
            </label>
          ))}
        </fieldset>
      )}
      {problems.other && (
        <p className="form-error" role="alert">
          It could not be saved: {problems.other}
        </p>
      )}
    </Dialog>
  );
}

function DeactivateDialog({ user, onDone, onClose }: DialogProps & { user: User }) {
  const [problem, setProblem] = useState<string | null>(null);
  const update = useUpdateUser({
    onSuccess: (saved) =>
      onDone(`${displayName(saved)} is deactivated: their sessions and keys no longer work.`),
    onError: (error) => setProblem(problemsOf(error).other ?? 'The server refused it.'),
  });
  return (
    <ConfirmDialog
      title={`Deactivate ${displayName(user)}?`}
      description="They are signed out everywhere at once and their API keys stop working. Their content stays; you can activate them again, but revoked keys stay revoked."
      action="Deactivate"
      pendingAction="Deactivating…"
      pending={update.isPending}
      onConfirm={() => update.mutate({ params: { path: { id: user.id } }, body: { isDeactivated: true } })}
      problem={problem}
      onClose={onClose}
    />
  );
}
