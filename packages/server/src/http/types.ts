import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';

/**
 * The root Fastify instance as http/ sees it. Modules never use it: a module's routes are a
 * `FastifyPluginAsyncTypebox` given its services as options (http/app.ts registers them). The
 * request fields and `config.access` are declared by auth/authenticate.ts.
 */
export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;
