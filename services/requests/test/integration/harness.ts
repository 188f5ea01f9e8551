import { randomUUID } from 'node:crypto';
import type { RequestListener } from 'node:http';
import { createNatsBus, type Bus } from '@meridian/bus';
import { answerAsIdentity, type IdentityAnswers } from '@meridian/bus/testing';
import { STREAMS } from '@meridian/contracts';
import { callerHeaders } from '@meridian/http-kit/testing';
import { createLogger, createMetrics } from '@meridian/observability';
import { TEST_NATS_URL, startServiceForTest, startTestGround } from '@meridian/runtime/testing';
import { runScript, startServiceProcess, type ServiceProcess } from '@meridian/test-peers';
import type { RequestsDeps } from '../../src/deps.js';
import { start } from '../../src/main.js';

export interface Requests {
  deps: RequestsDeps;
  app: RequestListener;
  /** A client on the namespace: publishes and reads events as other services would. */
  client: Bus;
  databaseUrl: string;
  /** The NATS namespace of the service and `client` (an operators' command names it as BUS_NAMESPACE). */
  busNamespace: string;
  as(accountId: string): Promise<Record<string, string>>;
  /**
   * Identity as billing:admin and requests:admin ask it (rpc.identity.account.email.v1 and
   * rpc.identity.operator.resolve.v1), answered on the test bus as identity's contract says: every
   * account exists; `operators` hold the role, `members` are accounts without it, anyone else is none.
   */
  identity: Required<Pick<IdentityAnswers, 'operators' | 'members'>>;
  /** Credit for an account, through billing's operators' command line, named by a harness operator. */
  grant(accountId: string, amount: number): Promise<void>;
  /** The account's credit balance, through billing's operators' command line. */
  balance(accountId: string): Promise<number>;
  close(): Promise<void>;
}

/**
 * The requests service as main.ts assembles it, and billing beside it as its own process (the
 * real prices, spends and order quotes), on a fresh database and a private NATS namespace.
 */
export async function startRequests(prefix: string, env: Record<string, string> = {}): Promise<Requests> {
  const ground = await startTestGround(prefix);
  const { databaseUrl, namespace } = ground;
  const billing: ServiceProcess = await startServiceProcess('services/billing/src/main.ts', {
    ...ground.env,
    DEPOSIT_ADDRESS: 'Dep1t5WaLLet1111111111111111111111111111111',
  });
  const started = await startServiceForTest(start, ground, env);
  const { service } = started;
  const client = await createNatsBus({
    url: TEST_NATS_URL,
    name: 'requests-test-client',
    namespace,
    logger: createLogger('requests-test-client', { level: 'warn' }),
    metrics: createMetrics('requests-test-client', { defaultMetrics: false }),
  });
  await client.ensureStream(STREAMS.requests);
  const identity = { operators: new Map([[GRANTER, randomUUID()]]), members: new Set<string>() };
  await answerAsIdentity(client, identity);
  return {
    identity,
    deps: service.deps as unknown as RequestsDeps,
    app: service.app,
    client,
    databaseUrl,
    busNamespace: namespace,
    as: (accountId) =>
      callerHeaders({ account_id: accountId, auth: 'session', session_id: randomUUID(), plan: 'free' }),
    grant: async (accountId, amount) => {
      const run = await runScript(
        'services/billing/scripts/admin.ts',
        [
          'grant',
          '--operator',
          GRANTER,
          '--account',
          accountId,
          '--amount',
          String(amount),
          '--note',
          'test credit',
        ],
        { DATABASE_URL: databaseUrl, NATS_URL: TEST_NATS_URL, BUS_NAMESPACE: namespace },
      );
      if (run.code !== 0) throw new Error(run.stderr);
    },
    balance: async (accountId) => {
      const run = await runScript('services/billing/scripts/admin.ts', ['balance', '--account', accountId], {
        DATABASE_URL: databaseUrl,
      });
      if (run.code !== 0) throw new Error(run.stderr);
      return Number(run.stdout.trim());
    },
    close: async () => {
      await client.close();
      await started.close();
      await billing.close();
      await ground.close();
    },
  };
}

/** The operator the harness's grants name. */
const GRANTER = 'granter@requests.test';
