import { randomUUID } from 'node:crypto';
import type { RequestListener } from 'node:http';
import { sql } from 'kysely';
import { createNatsBus, type Bus } from '@meridian/bus';
import type { Report } from '@meridian/contracts';
import { callerHeaders } from '@meridian/http-kit/testing';
import { createLogger, createMetrics } from '@meridian/observability';
import { TEST_NATS_URL, startServiceForTest } from '@meridian/runtime/testing';
import type { AnalysisDeps } from '../../src/deps.js';
import { start } from '../../src/main.js';

export interface Analysis {
  deps: AnalysisDeps;
  app: RequestListener;
  url: string;
  client: Bus;
  databaseUrl: string;
  as(accountId: string): Promise<Record<string, string>>;
  /** A finished run of `accountId` with `report`, as the workers leave one. */
  finishedRun(accountId: string, report: Report): Promise<void>;
  close(): Promise<void>;
}

/** The analysis service as main.ts assembles it, on a fresh database and a private NATS namespace. */
export async function startAnalysis(prefix: string, env: Record<string, string> = {}): Promise<Analysis> {
  const started = await startServiceForTest(start, prefix, env);
  const { service, ground } = started;
  const deps = service.deps as unknown as AnalysisDeps;
  const client = await createNatsBus({
    url: TEST_NATS_URL,
    name: 'analysis-test-client',
    namespace: ground.namespace,
    logger: createLogger('analysis-test-client', { level: 'warn' }),
    metrics: createMetrics('analysis-test-client', { defaultMetrics: false }),
  });
  return {
    deps,
    app: service.app,
    url: service.url,
    client,
    databaseUrl: ground.databaseUrl,
    as: (accountId) =>
      callerHeaders({ account_id: accountId, auth: 'session', session_id: randomUUID(), plan: 'free' }),
    finishedRun: async (accountId, report) => {
      // A finished run as a worker leaves it (the platform's runs table; the domain row is not needed).
      await sql`
        insert into analysis.runs
          (id, account_id, domain_id, domain, tier, status, payment, amount_atomic, origin, created_at, finished_at, report)
        values (${report.run_id}, ${accountId}::uuid, ${randomUUID()}::uuid, ${report.domain}, ${report.tier},
          ${report.status}, 'subscription', 0, 'request', now(), now(), ${JSON.stringify(report)}::jsonb)`.execute(
        deps.db,
      );
    },
    close: async () => {
      await client.close();
      await started.close();
    },
  };
}
