import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { Access, Principal } from '../auth/principal.ts';
import type { TenantRow } from '../db/schema.ts';

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route; enforced for every route by auth/authenticate.ts. */
    access?: Access;
  }
  interface FastifyRequest {
    tenant: TenantRow | null;
    principal: Principal | null;
  }
}
