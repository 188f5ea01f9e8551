import { randomUUID } from 'node:crypto';
import { connect as netConnect, createServer, type AddressInfo, type Socket } from 'node:net';
import type { Metrics } from '@meridian/observability';
import { RPC, problem } from '@meridian/contracts';
import { connect } from 'nats';
import { sleep } from './codec.js';
import type { Bus } from './types.js';

export interface BusUnderTest {
  bus: Bus;
  /** A second bus on the same system, standing for another replica; the suite closes it. */
  peer?: () => Promise<Bus>;
  /** The metrics given to `bus`, to check that dead letters are counted. */
  metrics?: Metrics;
  cleanup: () => Promise<void>;
}

/** The NATS server (with JetStream) tests and benches use: the machine's own unless NATS_URL names another. */
export const TEST_NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

/** A short name unique to one test, usable in subjects and stream names. */
export function uniqueName(prefix = 'x'): string {
  return `${prefix}${randomUUID().replaceAll('-', '').slice(0, 10)}`;
}

export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  { timeoutMs = 10_000, intervalMs = 20, what = 'condition' } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/** Deletes every stream of a test namespace (see `namespace` of createNatsBus). */
export async function deleteNatsNamespace(url: string, namespace: string): Promise<void> {
  const nc = await connect({ servers: url, name: `cleanup-${namespace}` });
  try {
    const jsm = await nc.jetstreamManager();
    const prefix = `${namespace.toUpperCase()}_`;
    for await (const name of jsm.streams.names()) {
      if (name.startsWith(prefix)) await jsm.streams.delete(name);
    }
  } finally {
    await nc.close();
  }
}

/** A loopback TCP relay in front of a server whose link a test can cut and restore. */
export interface CuttableLink {
  /** `nats://127.0.0.1:<port>` of the relay. */
  url: string;
  /** Drops every relayed connection and refuses new ones until restore(). */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

/** Relays to the server of `url` (nats://host:port), so a client's connection can be lost on demand. */
export async function cuttableLink(url: string): Promise<CuttableLink> {
  const target = new URL(url);
  const host = target.hostname;
  const port = Number(target.port || 4222);
  const sockets = new Set<Socket>();
  let open = true;
  const server = createServer((client) => {
    if (!open) return void client.destroy();
    const upstream = netConnect({ host, port });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: listening } = server.address() as AddressInfo;
  return {
    url: `nats://127.0.0.1:${listening}`,
    cut: () => {
      open = false;
      for (const s of sockets) s.destroy();
    },
    restore: () => {
      open = true;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Identity as another service asks it in that service's own tests (services never start each
 * other there): `rpc.identity.account.email.v1` and `rpc.identity.operator.resolve.v1`, answered
 * on the test bus as identity's contract says. `accounts` are the ones that exist (unset: every
 * one asked of), `operators` map an operator's email to its account id, `members` are emails of
 * accounts without the role (403 `operator_required`); any other email is no account (404).
 */
export interface IdentityAnswers {
  accounts?: Set<string>;
  operators: Map<string, string>;
  members?: Set<string>;
}

export async function answerAsIdentity(bus: Bus, identity: IdentityAnswers): Promise<void> {
  await bus.serve(RPC.identityAccountEmail, 'identity', async (req: { account_id: string }) =>
    !identity.accounts || identity.accounts.has(req.account_id)
      ? {
          ok: true,
          data: {
            account_id: req.account_id,
            email: `${req.account_id.slice(0, 8)}@example.test`,
            nickname: null,
          },
        }
      : { ok: false, problem: problem('not_found', 'No such account.') },
  );
  await bus.serve(RPC.identityOperatorResolve, 'identity', async ({ email }: { email: string }) => {
    const accountId = identity.operators.get(email);
    if (accountId) return { ok: true, data: { account_id: accountId, email, nickname: null } };
    if (identity.members?.has(email))
      return {
        ok: false,
        problem: problem('forbidden', 'That account holds no operator role.', {
          category: 'operator_required',
        }),
      };
    return { ok: false, problem: problem('not_found', 'No account has that email.') };
  });
}
