import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../auth/authenticate.ts';
import { DeploymentParams, Success } from '../deployments/schemas.ts';
import {
  CommitBody,
  CommitResponse,
  GitRemoteBody,
  GitRemoteResponse,
  MergeIntoParentBody,
  MergeResponse,
  MergeToDefaultBody,
  PullBody,
  PullResponse,
  StagingBody,
  StagingResponse,
  WebhookParams,
  WebhookResponse,
} from './git-schemas.ts';
import type { ModelGitService } from './git-service.ts';

const tags = ['Data Model'];
const base = '/build/api/v1/deployments/:deploymentId';
const write = { access: { role: 'developer' as const } };
const admin = { access: { role: 'admin' as const } };

/** The reference's git operations of the Data Model group, and the git remote they use. */
export const gitRoutes: FastifyPluginAsyncTypebox<{ git: ModelGitService }> = async (app, { git }) => {
  app.post(
    `${base}/commit`,
    {
      schema: {
        tags,
        operationId: 'commitChanges',
        summary: "Commit (and push) the active branch's pending changes",
        params: DeploymentParams,
        body: CommitBody,
        response: { 200: CommitResponse },
      },
      config: write,
    },
    (r) => git.commit(principalOf(r), r.params.deploymentId, r.body ?? {}),
  );
  app.post(
    `${base}/merge`,
    {
      schema: {
        tags,
        operationId: 'mergeIntoParentBranch',
        summary: 'Merge a branch into its parent branch (git-flow merge); 409 naming the files on a conflict',
        params: DeploymentParams,
        body: MergeIntoParentBody,
        response: { 200: MergeResponse },
      },
      config: write,
    },
    (r) => git.mergeIntoParent(principalOf(r), r.params.deploymentId, r.body ?? {}),
  );
  app.post(
    `${base}/merge-to-default`,
    {
      schema: {
        tags,
        operationId: 'mergeToDefaultBranch',
        summary:
          'Merge a branch straight into the deploy (default) branch: refused while the result has model errors; 409 naming the files on a conflict',
        params: DeploymentParams,
        body: MergeToDefaultBody,
        response: { 200: MergeResponse },
      },
      config: write,
    },
    (r) => git.mergeToDefault(principalOf(r), r.params.deploymentId, r.body ?? {}),
  );
  app.post(
    `${base}/pull`,
    {
      schema: {
        tags,
        operationId: 'pull',
        summary: 'Pull the latest for a branch from its remote and rebuild if changed',
        params: DeploymentParams,
        body: PullBody,
        response: { 200: PullResponse },
      },
      config: write,
    },
    (r) => git.pull(principalOf(r), r.params.deploymentId, r.body),
  );
  app.put(
    `${base}/branches/staging-environment`,
    {
      schema: {
        tags,
        operationId: 'setBranchStagingEnvironment',
        summary: "Enable or disable a branch's staging environment",
        params: DeploymentParams,
        body: StagingBody,
        response: { 200: StagingResponse },
      },
      config: write,
    },
    (r) => git.setStaging(principalOf(r), r.params.deploymentId, r.body),
  );
  app.get(
    `${base}/git/remote`,
    {
      schema: {
        tags,
        operationId: 'getGitRemote',
        summary: "The deployment's git remote (its token and webhook secret are never returned)",
        params: DeploymentParams,
        response: { 200: GitRemoteResponse },
      },
      config: write,
    },
    (r) => git.getRemote(principalOf(r), r.params.deploymentId),
  );
  app.put(
    `${base}/git/remote`,
    {
      schema: {
        tags,
        operationId: 'setGitRemote',
        summary: 'Connect the deployment to a git repository over HTTPS, with a token and a webhook secret',
        params: DeploymentParams,
        body: GitRemoteBody,
        response: { 200: GitRemoteResponse },
      },
      config: admin,
    },
    (r) => git.putRemote(principalOf(r), r.params.deploymentId, r.body),
  );
  app.delete(
    `${base}/git/remote`,
    {
      schema: {
        tags,
        operationId: 'removeGitRemote',
        summary: 'Disconnect the git remote (the repository in Tessera stays)',
        params: DeploymentParams,
        response: { 200: Success },
      },
      config: admin,
    },
    (r) => git.removeRemote(principalOf(r), r.params.deploymentId),
  );
  await app.register(webhookRoute, { git });
};

/**
 * The remote's push webhook. Public (the remote holds no Tessera credential): the HMAC-SHA256 of
 * the exact bytes sent is the proof, so this scope keeps JSON bodies as raw buffers.
 */
const webhookRoute: FastifyPluginAsyncTypebox<{ git: ModelGitService }> = async (app, { git }) => {
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_r, body, done) => done(null, body));
  app.post(
    `${base}/git/webhook`,
    {
      schema: {
        tags,
        operationId: 'gitWebhook',
        summary:
          'A push event from the git remote, signed as GitHub signs it (X-Hub-Signature-256: sha256=<HMAC-SHA256 of the body under the webhook secret>): the pushed branch is pulled',
        params: WebhookParams,
        response: { 200: WebhookResponse },
      },
      config: { access: { public: true } },
    },
    (r) =>
      git.webhook(
        Number(r.params.deploymentId),
        Buffer.isBuffer(r.body) ? r.body : Buffer.alloc(0),
        header(r.headers['x-hub-signature-256']),
        header(r.headers['x-github-event']),
      ),
  );
};

const header = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
