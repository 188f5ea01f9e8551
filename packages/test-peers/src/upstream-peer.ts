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
   * optionally with a query (`/api/v3/klines?symbol=ETHUSDT&interval=1s`) that answers only the requests
   * carrying those parameters with those values (others may be present); a request matching no query
   * of its pathname gets the pathname's own answers. A path without answers is 404, as an upstream's
   * unknown route is.
   */
  answer(path: string, ...answers: UpstreamAnswer[]): void;
  /** Every request received, in order: its pathname and query. */
  requests: { path: string; query: URLSearchParams }[];
  close(): Promise<void>;
}

/**
 * A real HTTP server on loopback that plays an upstream's recorded answers: connectors are tested
 * against their upstream's own format over HTTP, never by faking our own client.
 */
export async function startUpstreamPeer(): Promise<UpstreamPeer> {
  const queues = new Map<string, UpstreamAnswer[]>();
  const requests: UpstreamPeer['requests'] = [];
  /** The most specific queue for a request: the one whose query it carries with most parameters, else its pathname's. */
  const queueOf = (url: URL): UpstreamAnswer[] | undefined => {
    let best: { queue: UpstreamAnswer[]; params: number } | undefined;
    for (const [key, queue] of queues) {
      const at = key.indexOf('?');
      if (at < 0 || key.slice(0, at) !== url.pathname) continue;
      const wanted = [...new URLSearchParams(key.slice(at + 1))];
      if (wanted.every(([k, v]) => url.searchParams.get(k) === v) && wanted.length > (best?.params ?? 0))
        best = { queue, params: wanted.length };
    }
    return best?.queue ?? queues.get(url.pathname);
  };
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://upstream');
    requests.push({ path: url.pathname, query: url.searchParams });
    const queue = queueOf(url);
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
      queues.set(path, answers);
    },
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
