import { Type } from 'typebox';
import { Branch, BranchName } from './schemas.ts';

// The reference's git operations of the Data Model group (commitChanges, mergeIntoParentBranch,
// mergeToDefaultBranch, pull, setBranchStagingEnvironment), and Tessera's own git remote settings.

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const Message = Type.String({ maxLength: 1000 });

export const CommitBody = Type.Object({
  branchName: Type.Optional(
    Type.Union([BranchName, Type.Null()], {
      description: "The branch to commit; the caller's dev-mode branch when omitted",
    }),
  ),
  message: Type.Optional(Nullable(Message)),
  exitDevMode: Type.Optional(Nullable(Type.Boolean())),
  resolveMergeConflict: Type.Optional(
    Nullable(
      Type.Boolean({
        description:
          'Accepted as the reference sends it; no effect: a conflicting merge is refused, never left half-done',
      }),
    ),
  ),
});
export const CommitResponse = Type.Object({
  success: Type.Boolean(),
  branchName: Type.String(),
  commitHash: Type.String({ description: "The branch's head after the commit" }),
  committed: Type.Boolean({ description: 'False when the branch had no pending changes' }),
  pushed: Type.Boolean({ description: 'Whether the commit was pushed to the git remote' }),
});

export const MergeIntoParentBody = Type.Object({
  branchId: Type.Optional(Type.Integer({ minimum: 1 })),
  branchName: Type.Optional(BranchName),
  deleteBranch: Type.Optional(Nullable(Type.Boolean())),
  message: Type.Optional(Nullable(Message)),
  squashCommits: Type.Optional(
    Nullable(
      Type.Boolean({ description: 'Accepted as the reference sends it; the merge is always a merge commit' }),
    ),
  ),
  switchToParentBranch: Type.Optional(Nullable(Type.Boolean())),
});
export const MergeToDefaultBody = Type.Object({
  branchId: Type.Optional(Type.Integer({ minimum: 1 })),
  branchName: Type.Optional(BranchName),
  message: Type.Optional(Message),
  removeBranchAfterMerge: Type.Optional(Nullable(Type.Boolean())),
});
export const MergeResponse = Type.Object({ merged: Type.Boolean(), branchDeleted: Type.Boolean() });

export const PullBody = Type.Object({ branchName: BranchName });
export const PullResponse = Type.Object({
  buildTriggered: Type.Boolean({ description: "Whether the branch's files changed" }),
  commitHash: Type.String(),
});

export const StagingBody = Type.Object({
  branchId: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
  branchName: Type.Optional(Nullable(BranchName)),
  enabled: Type.Boolean(),
});
export const StagingResponse = Type.Object({ data: Branch });

export const GitRemoteBody = Type.Object({
  url: Type.String({
    format: 'uri',
    pattern: '^https?://',
    maxLength: 2000,
    description: 'HTTPS URL of the repository (plain HTTP only to this host, for a local git server)',
  }),
  token: Type.Optional(
    Nullable(
      Type.String({
        minLength: 1,
        maxLength: 1000,
        description:
          'Access token sent as HTTP basic credentials; write-only; null removes it, omitted keeps it',
      }),
    ),
  ),
  webhookSecret: Type.Optional(
    Nullable(
      Type.String({
        minLength: 16,
        maxLength: 256,
        description: 'Secret the remote signs push webhooks with (X-Hub-Signature-256); write-only',
      }),
    ),
  ),
});
export const GitRemoteResponse = Type.Object({
  url: Nullable(Type.String()),
  hasToken: Type.Boolean(),
  hasWebhookSecret: Type.Boolean(),
  webhookPath: Type.String({ description: 'Where the remote posts push events' }),
});

/**
 * A public route reads its own parameters (http/validation.ts checks decimal integers only behind
 * a credential): the id as decimal digits, so that `0x1` or `1e0` is a 400, not another deployment.
 */
export const WebhookParams = Type.Object({ deploymentId: Type.String({ pattern: '^[1-9][0-9]{0,8}$' }) });

export const WebhookResponse = Type.Object({
  pulled: Type.Boolean(),
  branchName: Nullable(Type.String()),
});
