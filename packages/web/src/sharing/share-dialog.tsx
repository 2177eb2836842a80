import {
  useGrantContentPermission,
  useListContentPermissions,
  useListGroups,
  useListUsers,
  useRevokeContentPermission,
} from '@tessera/client/react';
import { type FormEvent, useState } from 'react';
import { describeError } from '../api/errors.ts';
import { useSignedInUser } from '../session/session.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { SelectField } from '../ui/field.tsx';
import { noProblems, type Problems, problemsOf } from '../ui/problems.ts';
import './sharing.css';

export type ShareableType = 'FOLDER' | 'WORKBOOK' | 'REPORT';
export type Level = 'view' | 'edit' | 'manage';

export interface Shareable {
  type: ShareableType;
  id: number;
  name: string;
  /** The folders above the item, outermost first: their grants reach it (spec 4.5). */
  folderPath: readonly { id: number; name: string }[];
}

const levels: readonly { value: Level; label: string }[] = [
  { value: 'view', label: 'Can view' },
  { value: 'edit', label: 'Can edit' },
  { value: 'manage', label: 'Can manage' },
];
const levelLabel = (level: string) => levels.find((l) => l.value === level)?.label ?? level;
const typeWords: Record<ShareableType, string> = { FOLDER: 'folder', WORKBOOK: 'workbook', REPORT: 'report' };

interface Names {
  user: (id: number) => string;
  group: (id: number) => string;
}

/**
 * Who may view, edit or manage a folder, workbook or report (the permissions API; spec 4.5): its
 * own grants, each level changeable and removable; the grants it inherits from the folders above,
 * each saying which folder it comes from; and a form to share it with a group or (for admins,
 * who may list the account's users) a person. The server checks manage access and the grantee;
 * its problems show beside the fields.
 */
export function ShareDialog({
  deploymentId,
  item,
  onClose,
}: {
  deploymentId: number;
  item: Shareable;
  onClose: () => void;
}) {
  const admin = useSignedInUser().role === 'admin';
  const users = useListUsers({ params: { query: { first: 1000 } } }, { enabled: admin });
  const groups = useListGroups({ params: { query: { first: 1000 } } });
  const [grantee, setGrantee] = useState('');
  const [level, setLevel] = useState<Level>('view');
  const [problems, setProblems] = useState<Problems>(noProblems);
  const grant = useGrantContentPermission({
    onSuccess: () => setGrantee(''),
    onError: (error) => setProblems(problemsOf(error)),
  });
  const names: Names = {
    user: (id) => {
      const u = users.data?.items.find((x) => x.id === id);
      return u ? [u.firstName, u.lastName].filter(Boolean).join(' ') || u.email : `User #${id}`;
    },
    group: (id) => groups.data?.items.find((g) => g.id === id)?.name ?? `Group #${id}`,
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setProblems(noProblems);
    const [kind, raw] = grantee.split(':');
    const who = kind === 'user' ? { userId: Number(raw) } : kind === 'group' ? { groupId: Number(raw) } : {};
    grant.mutate({
      params: { path: { deploymentId } },
      body: { type: item.type, id: item.id, level, ...who },
    });
  };
  const granteeProblem = problems.fields.userId ?? problems.fields.groupId ?? problems.fields.body;
  return (
    <Dialog
      title={`Share “${item.name}”`}
      description={`People and groups given access to this ${typeWords[item.type]}. Admins see everything.`}
      onClose={onClose}
      onSubmit={submit}
      buttons={(close) => (
        <>
          <button type="button" className="button button-secondary" onClick={close}>
            Done
          </button>
          <button
            type="submit"
            className="button button-primary"
            disabled={grant.isPending || grantee === ''}
          >
            {grant.isPending ? 'Sharing…' : 'Share'}
          </button>
        </>
      )}
    >
      <Grants deploymentId={deploymentId} item={item} names={names} />
      {item.folderPath.length > 0 && (
        <section className="share-inherited" aria-label="Inherited access">
          <h3>From the folders above</h3>
          {item.folderPath.map((folder) => (
            <InheritedGrants key={folder.id} deploymentId={deploymentId} folder={folder} names={names} />
          ))}
        </section>
      )}
      <fieldset className="share-add">
        <legend>Share with</legend>
        <div className="share-add-row">
          <SelectField
            label="Person or group"
            value={grantee}
            options={[
              { value: '', label: 'Choose…' },
              ...(groups.data?.items ?? []).map((g) => ({
                value: `group:${g.id}`,
                label: `Group: ${g.name}`,
              })),
              ...(users.data?.items ?? []).map((u) => ({ value: `user:${u.id}`, label: names.user(u.id) })),
            ]}
            onChange={setGrantee}
            problem={granteeProblem}
          />
          <SelectField<Level>
            label="Access"
            value={level}
            options={levels}
            onChange={setLevel}
            problem={problems.fields.level}
          />
        </div>
        {!admin && (
          <p className="muted share-hint">You can share with groups; an admin can share with a person.</p>
        )}
        {problems.other && (
          <p className="form-error" role="alert">
            It could not be shared: {problems.other}
          </p>
        )}
      </fieldset>
    </Dialog>
  );
}

/** The item's own grants: each level can be changed, each grant removed. */
function Grants({ deploymentId, item, names }: { deploymentId: number; item: Shareable; names: Names }) {
  const list = useListContentPermissions({
    params: { path: { deploymentId }, query: { type: item.type, id: item.id } },
  });
  const [problem, setProblem] = useState<string | null>(null);
  const change = useGrantContentPermission({ onError: (e) => setProblem(describeError(e)) });
  const revoke = useRevokeContentPermission({ onError: (e) => setProblem(describeError(e)) });
  const grants = (list.data?.items ?? []).filter((g) => g.userId !== null || g.groupId !== null);
  if (list.isPending) return <p className="muted">Loading who has access…</p>;
  if (list.isError)
    return (
      <p className="form-error" role="alert">
        Who has access could not be read: {describeError(list.error)}
      </p>
    );
  return (
    <section className="share-grants" aria-label="Access to this item">
      {grants.length === 0 ? (
        <p className="muted">Only its owner, the owners above it and admins have access.</p>
      ) : (
        <ul>
          {grants.map((g) => {
            const who =
              g.userId !== null ? names.user(g.userId) : `Group: ${names.group(g.groupId as number)}`;
            return (
              <li key={g.id} className="share-grant">
                <span className="share-who">{who}</span>
                <label className="visually-hidden" htmlFor={`grant-${g.id}`}>
                  Access of {who}
                </label>
                <select
                  id={`grant-${g.id}`}
                  value={g.level}
                  onChange={(e) =>
                    change.mutate({
                      params: { path: { deploymentId } },
                      body: {
                        type: item.type,
                        id: item.id,
                        level: e.target.value as Level,
                        ...(g.userId !== null ? { userId: g.userId } : { groupId: g.groupId as number }),
                      },
                    })
                  }
                >
                  {levels.map((l) => (
                    <option key={l.value} value={l.value}>
                      {l.label}
                    </option>
                  ))}
                </select>
                <button
                  type="button"
                  className="button button-ghost"
                  aria-label={`Remove the access of ${who}`}
                  disabled={revoke.isPending}
                  onClick={() => revoke.mutate({ params: { path: { deploymentId, permissionId: g.id } } })}
                >
                  Remove
                </button>
              </li>
            );
          })}
        </ul>
      )}
      {problem && (
        <p className="form-error" role="alert">
          {problem}
        </p>
      )}
    </section>
  );
}

/** The grants of one folder above the item, read-only: they are changed on that folder. */
function InheritedGrants({
  deploymentId,
  folder,
  names,
}: {
  deploymentId: number;
  folder: { id: number; name: string };
  names: Names;
}) {
  const list = useListContentPermissions({
    params: { path: { deploymentId }, query: { type: 'FOLDER', id: folder.id } },
  });
  const grants = (list.data?.items ?? []).filter((g) => g.userId !== null || g.groupId !== null);
  if (grants.length === 0) return null;
  return (
    <ul>
      {grants.map((g) => (
        <li key={g.id} className="share-grant share-grant-inherited">
          <span className="share-who">
            {g.userId !== null ? names.user(g.userId) : `Group: ${names.group(g.groupId as number)}`}
          </span>
          <span className="share-level">{levelLabel(g.level)}</span>
          <span className="muted">through the folder “{folder.name}”</span>
        </li>
      ))}
    </ul>
  );
}
