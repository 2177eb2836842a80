import type { Config } from '../../server/src/config/config.ts';
import { startTestServer, type TestServer } from '../../server/test/harness.ts';
import { type Client, createClient } from '../src/index.ts';

// The generated sample data at its smallest: these tests are about the client, not the engine.
process.env.TESSERA_SAMPLE_SCALE ??= '0.002';

export interface ListeningServer {
  server: TestServer;
  baseUrl: string;
  client: Client;
  close(): Promise<void>;
}

/** A Tessera server on a real store, listening on 127.0.0.1, and a client with its admin key. */
export async function startListening(overrides: Partial<Config> = {}): Promise<ListeningServer> {
  const server = await startTestServer(overrides);
  const baseUrl = await server.app.listen({ host: '127.0.0.1', port: 0 });
  return {
    server,
    baseUrl,
    client: createClient({ baseUrl, token: server.adminKey }),
    close: () => server.close(),
  };
}

/** A name no other test of the run uses. */
export function unique(prefix: string): string {
  return `${prefix}-${Math.random().toString(36).slice(2, 10)}`;
}
