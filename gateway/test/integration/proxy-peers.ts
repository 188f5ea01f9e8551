import { connect } from 'node:net';
import express from 'express';
import { INTERNAL_ASSERTION_HEADER } from '@meridian/contracts';
import { createHttpApp, finishApp, requireCaller, startServer, type RunningServer } from '@meridian/http-kit';
import { testAssertionKey } from '@meridian/http-kit/testing';
import { createLogger, createMetrics } from '@meridian/observability';

/**
 * The peers of the proxy tests: a raw HTTP/1.1 exchange on a socket, and a service behind the
 * gateway that answers who the gateway vouched for and counts what it saw.
 */
const logger = createLogger('proxy-peers', { level: 'silent' });

/** What the service behind the gateway saw. */
export interface OwnerSeen {
  /** POSTs it received. */
  posted: number;
  /** Requests to /v1/data/held it saw closed before it answered them. */
  heldClosed: number;
}

/**
 * Writes `head` on a raw connection, then `body` once `when` is seen in the answer (or at once
 * without `when`), and gives everything the gateway answered when it closes or after `waitMs`.
 */
export function rawExchange(
  url: string,
  head: string,
  body = '',
  options: { when?: string; waitMs?: number } = {},
): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    let answer = '';
    let sent = options.when === undefined;
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(head);
      if (sent) socket.write(body);
    });
    const timer = setTimeout(() => socket.destroy(), options.waitMs ?? 3000);
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString();
      if (!sent && answer.includes(options.when!)) {
        sent = true;
        socket.write(body);
      }
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(answer);
    });
    socket.on('error', () => undefined);
  });
}

/** A service behind the gateway: answers who the gateway says the caller is. */
export async function fakeOwner(seen: OwnerSeen): Promise<RunningServer> {
  const app = createHttpApp({ logger, metrics: createMetrics('svc', { defaultMetrics: false }) });
  const routes = express.Router();
  routes.get('/v1/catalog', (req, res) => {
    res.json({
      caller: req.caller,
      forwarded: req.header('x-forwarded-for') ?? null,
      ip: req.ip,
      cookie: req.header('cookie') ?? null,
      authorization: req.header('authorization') ?? null,
      requestId: req.header('x-request-id') ?? null,
      traceparent: req.header('traceparent') ?? null,
    });
  });
  routes.post('/v1/catalog', (req, res) => {
    seen.posted++;
    res.json({
      body: req.body as unknown,
      contentLength: req.header('content-length') ?? null,
      expect: req.header('expect') ?? null,
      cookie: req.header('cookie') ?? null,
      authorization: req.header('authorization') ?? null,
      forwarded: req.header('x-forwarded-for') ?? null,
    });
  });
  routes.get('/v1/demo', async () => {
    await new Promise((r) => setTimeout(r, 2000));
  });
  // Data paths no catalogue knows: the lean edge sends them on anonymously.
  routes.get('/v1/data/pieces', async (req, res) => {
    res.setHeader('content-type', 'text/plain');
    res.setHeader('x-request-id', 'the-service-cannot-set-this');
    res.setHeader('x-seen-assertion', req.header(INTERNAL_ASSERTION_HEADER) ? 'yes' : 'no');
    for (const piece of ['one,', 'two,', 'three']) {
      res.write(piece);
      await new Promise((r) => setTimeout(r, 20));
    }
    res.end();
  });
  routes.get('/v1/data/slow', async () => {
    await new Promise((r) => setTimeout(r, 2000));
  });
  routes.get('/v1/data/held', (req, res) => {
    const timer = setTimeout(() => res.json({ late: true }), 2000);
    res.on('close', () => {
      clearTimeout(timer);
      if (!res.writableFinished) seen.heldClosed++;
    });
  });
  app.use(requireCaller(testAssertionKey), routes);
  return startServer(finishApp(app), { port: 0 });
}
