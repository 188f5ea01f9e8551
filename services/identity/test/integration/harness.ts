import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { createNatsBus, startOutboxRelay, type Bus, type Closable } from '@meridian/bus';
import { waitFor } from '@meridian/bus/testing';
import { STREAMS } from '@meridian/contracts';
import { migrateToLatest, openDatabase } from '@meridian/db';
import { setErrorsBase } from '@meridian/http-kit';
import { testAssertionKey } from '@meridian/http-kit/testing';
import { createLogger, createMetrics } from '@meridian/observability';
import { rememberSecret } from '@meridian/observability/testing';
import { TEST_NATS_URL, startTestGround } from '@meridian/runtime/testing';
import { createApp } from '../../src/app.js';
import { parseConfig } from '../../src/config.js';
import type { Database } from '../../src/db/database.js';
import { migrations } from '../../src/db/migrations/index.js';
import type { IdentityDeps } from '../../src/deps.js';
import { bookingConsumers } from '../../src/events/booking-confirmed.js';
import { consumers } from '../../src/events/plan-changed.js';
import { identityParts, mailRelay } from '../../src/main.js';
import { rpcHandlers } from '../../src/rpc/verify.js';
import { linkIn, startSmtp, type ReceivedMail } from '@meridian/test-peers';

export { linkIn, startSmtp, type ReceivedMail };

export interface Harness {
  deps: IdentityDeps;
  app: ReturnType<typeof createApp>;
  bus: Bus;
  namespace: string;
  smtp: Awaited<ReturnType<typeof startSmtp>>;
  logLines: string[];
  /** The nth mail (default the last) sent to an address, waiting for it. */
  mailTo(address: string, count?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

/**
 * The service as main.ts assembles it, on a fresh database, a private NATS namespace and a real
 * SMTP server, with every log line captured.
 */
export async function startHarness(
  prefix: string,
  // A variable set to undefined is unset (e.g. SMTP_URL, for the all-in-one mail mode).
  env: Record<string, string | undefined> = {},
): Promise<Harness> {
  setErrorsBase('https://meridian.example/errors');
  const ground = await startTestGround(prefix, 'debug');
  const { namespace } = ground;
  const smtp = await startSmtp();
  const config = parseConfig({
    PORT: '0',
    ...ground.env,
    SMTP_URL: smtp.url,
    TOTP_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    // Tests sign up and make keys by the dozen from one address; the quotas' own tests set them.
    SIGNUP_ADDRESS_LIMIT: '100000',
    KEY_CREATION_LIMIT: '100000',
    ...env,
  });
  const logLines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const logger = createLogger('identity', { level: 'debug', destination });
  const metrics = createMetrics('identity', { defaultMetrics: false });
  const opened = openDatabase<Database>({ kind: 'pg', url: ground.databaseUrl, poolSize: 5 }, 'identity');
  await migrateToLatest(opened.db, 'identity', migrations);
  const bus = await createNatsBus({ url: TEST_NATS_URL, name: 'identity-test', namespace, logger, metrics });
  for (const stream of [STREAMS.identity, STREAMS.billing, STREAMS.requests]) await bus.ensureStream(stream);
  const deps: IdentityDeps = {
    config,
    db: opened.db,
    bus,
    logger,
    metrics,
    assertionKey: testAssertionKey,
    ...identityParts(config),
  };
  const closers: Closable[] = [];
  for (const { subject, handler } of rpcHandlers(deps))
    closers.push(await bus.serve(subject, 'identity', handler));
  for (const spec of [...consumers(deps), ...bookingConsumers(deps)]) closers.push(await bus.consume(spec));
  const relay = startOutboxRelay({ db: opened.db, schema: 'identity', bus, logger, intervalMs: 50 });
  const stopMail = mailRelay(deps);
  const mailTo = async (address: string, count = 0) => {
    const matching = () => smtp.mails.filter((m) => m.to === address);
    await waitFor(() => matching().length >= Math.max(count, 1), { what: `mail to ${address}` });
    const all = matching();
    return count > 0 ? all[count - 1]! : all.at(-1)!;
  };
  return {
    deps,
    app: createApp(deps),
    bus,
    namespace,
    smtp,
    logLines,
    mailTo,
    close: async () => {
      await stopMail();
      await relay.close();
      for (const c of closers) await c.close();
      await bus.close();
      await opened.close();
      await smtp.close();
      await ground.close();
    },
  };
}

let counter = 0;
/** A fresh address for each use, so tests never meet through an email or a throttle counter. */
export function freshEmail(): string {
  counter += 1;
  return `user${counter}.${randomBytes(3).toString('hex')}@example.com`;
}

export const STRONG_PASSWORD = rememberSecret('violet-harbour-gramophone-47');
