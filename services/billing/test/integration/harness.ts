import { randomUUID } from 'node:crypto';
import type { RequestListener } from 'node:http';
import { sql } from 'kysely';
import { createNatsBus, type Bus } from '@meridian/bus';
import { answerAsIdentity } from '@meridian/bus/testing';
import { callerHeaders } from '@meridian/http-kit/testing';
import { createLogger, createMetrics } from '@meridian/observability';
import { TEST_NATS_URL, startServiceForTest } from '@meridian/runtime/testing';
import type { BillingDeps } from '../../src/deps.js';
import { start } from '../../src/main.js';
import { post } from '../../src/flows/post.js';

export interface Billing {
  deps: BillingDeps;
  app: RequestListener;
  /** A client on the service's bus namespace, as analysis or requests would be. */
  client: Bus;
  namespace: string;
  databaseUrl: string;
  /** Headers of a signed-in session of `accountId`, as the gateway sends them. */
  as(accountId: string): Promise<Record<string, string>>;
  /**
   * Identity as billing asks it (rpc.identity.account.email.v1 and rpc.identity.operator.resolve.v1,
   * answered on the test bus as identity's contract says): the accounts that exist, the operators by email.
   */
  identity: { accounts: Set<string>; operators: Map<string, string> };
  /** Credits an account (which then exists) by an operator's grant, for a scenario to start from. */
  grant(accountId: string, amount: number): Promise<void>;
  /** Fails unless the balance row equals the sum of the entries for every account. */
  assertBalancesMatchLedger(): Promise<void>;
  close(): Promise<void>;
}

/** The service as main.ts assembles it, on a fresh database and a private NATS namespace. */
export async function startBilling(
  prefix: string,
  env: Record<string, string | undefined> = {},
): Promise<Billing> {
  const started = await startServiceForTest(start, prefix, {
    DATABASE_POOL_SIZE: '20',
    // A deployment takes deposits unless a test says otherwise (DEPOSIT_ADDRESS: '').
    DEPOSIT_ADDRESS: 'Dep1t5WaLLet1111111111111111111111111111111',
    ...env,
  });
  const { service, ground } = started;
  const deps = service.deps as unknown as BillingDeps;
  const logger = createLogger('billing-test-client', { level: 'warn' });
  const client = await createNatsBus({
    url: TEST_NATS_URL,
    name: 'billing-test-client',
    namespace: ground.namespace,
    logger,
    metrics: createMetrics('billing-test-client', { defaultMetrics: false }),
  });
  const identity = { accounts: new Set<string>(), operators: new Map<string, string>() };
  await answerAsIdentity(client, identity);
  return {
    deps,
    app: service.app,
    identity,
    client,
    namespace: ground.namespace,
    databaseUrl: ground.databaseUrl,
    as: (accountId) =>
      callerHeaders({ account_id: accountId, auth: 'session', session_id: randomUUID(), plan: 'free' }),
    grant: async (accountId, amount) => {
      identity.accounts.add(accountId);
      const posted = await post(deps, {
        account_id: accountId,
        reason: 'admin_grant',
        amount_atomic: amount,
        ref: 'test setup',
        actor: 'operator:test',
        idempotency_key: `grant:${randomUUID()}`,
      });
      if (!posted.ok) throw new Error(posted.detail);
    },
    assertBalancesMatchLedger: async () => {
      const { rows } = await sql<{ account_id: string; balance: string; total: string }>`
        select coalesce(b.account_id, e.account_id) as account_id, coalesce(b.balance_atomic, 0) as balance,
               coalesce(e.total, 0) as total
        from billing.balances b
        full join (select account_id, sum(delta_atomic) as total from billing.ledger_entries group by account_id) e
          on e.account_id = b.account_id`.execute(deps.db);
      const off = rows.filter((r) => Number(r.balance) !== Number(r.total));
      if (off.length > 0) throw new Error(`balances differ from their ledgers: ${JSON.stringify(off)}`);
    },
    close: async () => {
      await client.close();
      await started.close();
    },
  };
}
