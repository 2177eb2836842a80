import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/**
 * What each module's `compose<Module>()` returns (issue 22 item 0): the services it built, which
 * the composition root (composition.ts) spreads into the `Application`, and one Fastify plugin
 * that registers the module's routes, given those services. composition.ts lists the composed
 * modules in registration order and http/app.ts registers each one's plugin, so that a new module
 * costs one line in composition.ts and none in http/app.ts.
 */
export interface ComposedModule<Services extends object = object> {
  services: Services;
  routes: FastifyPluginAsyncTypebox;
}

/** A module's routes plugin bound to its options at composition time. */
export function routesWith<Options extends object>(
  plugin: FastifyPluginAsyncTypebox<Options>,
  options: Options,
): FastifyPluginAsyncTypebox {
  return async (app) => {
    await app.register(plugin, options);
  };
}

type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** Every module's services in one object, as the `Application` exposes them. */
export function servicesOf<M extends readonly ComposedModule[]>(
  modules: M,
): Intersection<M[number]['services']> {
  return Object.assign({}, ...modules.map((m) => m.services));
}
