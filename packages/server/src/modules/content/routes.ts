import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../auth/authenticate.ts';
import { DeploymentParams } from '../deployments/schemas.ts';
import { ContentApplied, ContentDirectory, ContentPlan } from './schemas.ts';
import type { ContentService } from './service.ts';

const tags = ['Content as code'];
/** Whole-workspace writes, grants included: admins only (spec section 5; issue 25 item 6). */
const admin = { access: { role: 'admin' as const } };
const own =
  "Tessera's own operation (the reference has none): content kept as code for CI pipelines, the same as `tessera content export|plan|apply`.";

export const contentRoutes: FastifyPluginAsyncTypebox<{ content: ContentService }> = async (
  app,
  { content },
) => {
  const base = '/api/v1/deployments/:deploymentId/content';
  app.get(
    base,
    {
      schema: {
        tags,
        operationId: 'exportContent',
        summary:
          "Export the deployment's folders, workbooks, dashboards, reports, notifications and grants as YAML files",
        description: `${own} Files are keyed by path; ids are the stable ones (slugs, publicIds, folder directories), never database ids; no secret is included.`,
        params: DeploymentParams,
        response: { 200: ContentDirectory },
      },
      config: admin,
    },
    (r) => content.export(principalOf(r), r.params.deploymentId),
  );
  app.post(
    `${base}/plan`,
    {
      schema: {
        tags,
        operationId: 'planContent',
        summary: 'What applying these files would create, change and delete, per item and field',
        description: `${own} Nothing is changed. A bad file is a 400 naming it and its field (\`files[<path>]/<field>\`).`,
        params: DeploymentParams,
        body: ContentDirectory,
        response: { 200: ContentPlan },
      },
      config: admin,
    },
    (r) => content.plan(principalOf(r), r.params.deploymentId, r.body.files),
  );
  app.post(
    `${base}/apply`,
    {
      schema: {
        tags,
        operationId: 'applyContent',
        summary: "Make the deployment's content what these files describe, in one transaction",
        description: `${own} Idempotent: a second apply of the same files changes nothing. Every change goes through the same checks and audit entries as the API; a bad file is a 400 naming it and its field, and nothing changes.`,
        params: DeploymentParams,
        body: ContentDirectory,
        response: { 200: ContentApplied },
      },
      config: admin,
    },
    (r) => content.apply(principalOf(r), r.params.deploymentId, r.body.files),
  );
};
