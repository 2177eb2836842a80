import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox';
import type { FastifySchemaCompiler, FastifyServerOptions } from 'fastify';
import type { TSchema } from 'typebox';

/**
 * Route schemas compiled by a route's first request rather than at start: Fastify compiles every
 * route's validators (TypeBox) and response serializers (fast-json-stringify, which builds an Ajv
 * instance with its formats for each response schema) while the server starts, and for all the
 * routes that took 0.6 s of CPU on a busy machine (issue 20, item 6), most of it for routes a
 * process may never serve. The compilers and what they produce are the ones Fastify used; each
 * is compiled once, on first use, and kept.
 */
function onFirstCall<A extends unknown[], R>(compile: () => (...args: A) => R): (...args: A) => R {
  let compiled: ((...args: A) => R) | undefined;
  return (...args) => {
    compiled ??= compile();
    return compiled(...args);
  };
}

export const lazyValidatorCompiler: FastifySchemaCompiler<TSchema> = (route) =>
  onFirstCall(() => TypeBoxValidatorCompiler(route));

/** For Fastify's `schemaController` option: its default serializer factory, compiling lazily. */
export const lazySerializers: NonNullable<FastifyServerOptions['schemaController']> = {
  compilersFactory: {
    buildSerializer: (externalSchemas, options) => {
      const compile = SerializerSelector()(externalSchemas, options as never);
      return (route) => onFirstCall(() => compile(route as never));
    },
  },
};
