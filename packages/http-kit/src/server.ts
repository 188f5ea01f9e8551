import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestListener } from 'node:http';
import type { Logger } from '@meridian/observability';

export interface RunningServer {
  server: Server;
  port: number;
  url: string;
  /** Stops accepting connections and waits for in-flight requests, up to `graceMs`. */
  close(graceMs?: number): Promise<void>;
}

/** Listens on host:port (0 picks a free port) and returns a handle that drains on close. */
export async function startServer(
  handler: RequestListener,
  options: { port: number; host?: string; logger?: Logger; keepAliveTimeoutMs?: number },
): Promise<RunningServer> {
  const server = createServer(handler);
  // Longer than a typical proxy's idle timeout, so a keep-alive upstream socket is never closed under it.
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? 65_000;
  server.headersTimeout = server.keepAliveTimeout + 1_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    server,
    port,
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    close: (ms) => drain(server, ms),
  };
}

function drain(server: Server, graceMs = 10_000): Promise<void> {
  return new Promise((resolve) => {
    const deadline = setTimeout(() => server.closeAllConnections(), graceMs);
    // A keep-alive socket becomes idle once its in-flight request is answered; close it then.
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    server.close(() => {
      clearTimeout(deadline);
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
}
