import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One answer of the upstream: a recorded body in the upstream's own format, or a failure. */
export interface UpstreamAnswer {
  status?: number;
  body: string;
  headers?: Record<string, string>;
  /** Waits this long before answering (a slow or hung upstream). */
  delayMs?: number;
}

export interface UpstreamPeer {
  /** `http://127.0.0.1:<port>`: the base URL a connector is pointed at. */
  url: string;
  /**
   * What `path` answers next: the answers in turn, the last one again and again. `path` is a pathname,
   * optionally with a query (`/ticker?instrument_name=ETH-PERPETUAL`) that a request matches when it
   * carries each of those parameters with that value (others may differ); of the paths a request
   * matches, the one naming the most parameters answers. A path without answers is 404, as an
   * upstream's unknown route is.
   */
  answer(path: string, ...answers: UpstreamAnswer[]): void;
  /** Every request received, in order: its pathname and query. */
  requests: { path: string; query: URLSearchParams }[];
  close(): Promise<void>;
}

/**
 * A real HTTP server on loopback that plays an upstream's recorded answers (issue 16: connectors are
 * tested against their upstream's own format over HTTP, never by faking our own client).
 */
export async function startUpstreamPeer(): Promise<UpstreamPeer> {
  const queues = new Map<string, { query: URLSearchParams; answers: UpstreamAnswer[] }[]>();
  const requests: UpstreamPeer['requests'] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://upstream');
    requests.push({ path: url.pathname, query: url.searchParams });
    const matching = (queues.get(url.pathname) ?? []).filter(({ query }) =>
      [...query].every(([k, v]) => url.searchParams.get(k) === v),
    );
    const queue = matching.sort((a, b) => [...b.query].length - [...a.query].length)[0]?.answers;
    const next = queue && (queue.length > 1 ? queue.shift()! : queue[0]);
    const send = () => {
      if (!next) return res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      res
        .writeHead(next.status ?? 200, { 'content-type': 'application/json', ...next.headers })
        .end(next.body);
    };
    if (next?.delayMs) setTimeout(send, next.delayMs).unref();
    else send();
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    answer(path, ...answers) {
      const [pathname, search = ''] = path.split('?') as [string, string?];
      const query = new URLSearchParams(search);
      const others = (queues.get(pathname) ?? []).filter((q) => q.query.toString() !== query.toString());
      queues.set(pathname, [...others, { query, answers }]);
    },
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
