import type { Socket } from 'node:net';
import { Server as TlsServer } from 'node:tls';
import type { App } from './types.ts';

/**
 * Closing waits for in-flight requests, and Node's `server.close()` hangs up idle keep-alive
 * connections, but not a connection that has not sent a request yet: a browser's or fetch's
 * pre-opened socket is held until its headers timeout (60 s), and the process with it. Such a
 * connection has nothing in flight, so it is destroyed when closing starts.
 */
export function closeUnusedConnectionsOnClose(app: App): void {
  const unused = new Set<Socket>();
  // Over TLS a request's socket is the TLS socket of `secureConnection`, not the raw one.
  const opened = app.server instanceof TlsServer ? 'secureConnection' : 'connection';
  app.server.on(opened, (socket: Socket) => {
    unused.add(socket);
    socket.once('close', () => unused.delete(socket));
  });
  app.server.on('request', (request) => unused.delete(request.socket as Socket));
  app.addHook('preClose', async () => {
    for (const socket of unused) socket.destroy();
    unused.clear();
  });
}
