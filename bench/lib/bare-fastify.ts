/**
 * The baseline of the HTTP benchmarks: a bare Fastify server on loopback (no store, no checks)
 * whose routes `register` adds, open only while `measure` runs.
 */
import Fastify, { type FastifyInstance } from 'fastify';

export async function withBareFastify<T>(
  register: (app: FastifyInstance) => void,
  measure: (base: string) => Promise<T>,
): Promise<T> {
  const app = Fastify({ logger: false });
  register(app);
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  try {
    return await measure(base);
  } finally {
    await app.close();
  }
}
