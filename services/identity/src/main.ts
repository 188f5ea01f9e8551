import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { STREAMS } from '@meridian/contracts';
import { isEntrypoint, runMain, startService, type ServiceDeps, type SharedInfra } from '@meridian/runtime';
import { FORM_PATHS, routes } from './app.js';
import { oidcProviders, parseConfig, type Config } from './config.js';
import type { Database } from './db/database.js';
import { migrations } from './db/migrations/index.js';
import { SERVICE, type IdentityDeps } from './deps.js';
import { parseKey } from '@meridian/runtime';
import { bookingConsumers } from './events/booking-confirmed.js';
import { consumers } from './events/plan-changed.js';
import { reviewConsumers } from './events/review-recorded.js';
import { Semaphore } from './flows/passwords.js';
import { OidcRegistry } from './adapters/oidc.js';
import { mailFilesTransport } from './adapters/mail-files.js';
import { smtpTransport } from './adapters/smtp.js';
import { MailSignal, startMailRelay } from './jobs/mail-relay.js';
import { rpcHandlers } from './rpc/verify.js';

/**
 * The TOTP sealing key: TOTP_ENCRYPTION_KEY, else one generated at first start into
 * DATA_DIR/identity-totp.key (mode 0600). Kept out of the database, so a dump of it alone does
 * not open the secrets; replicas must share TOTP_ENCRYPTION_KEY.
 */
export function totpKeyOf(config: Config): Buffer {
  if (config.TOTP_ENCRYPTION_KEY) return parseKey(config.TOTP_ENCRYPTION_KEY, 'TOTP_ENCRYPTION_KEY');
  const file = join(config.DATA_DIR, 'identity-totp.key');
  if (!existsSync(file)) {
    mkdirSync(config.DATA_DIR, { recursive: true });
    writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
    chmodSync(file, 0o600);
  }
  return parseKey(readFileSync(file, 'utf8').trim(), file);
}

/** Identity's own parts, added to the chassis' deps. */
export function identityParts(config: Config) {
  return {
    totpKey: totpKeyOf(config),
    mail: new MailSignal(),
    oidc: new OidcRegistry(oidcProviders(config)),
    passwordHashing: new Semaphore(config.PASSWORD_HASH_CONCURRENCY),
  };
}

/** The mail relay, as a background task of the service. */
export function mailRelay(deps: IdentityDeps): () => Promise<void> {
  return startMailRelay({
    db: deps.db,
    logger: deps.logger,
    transport: deps.config.SMTP_URL
      ? smtpTransport(deps.config.SMTP_URL, deps.config.MAIL_FROM)
      : mailFilesTransport(deps.config.MAIL_DIR ?? join(deps.config.DATA_DIR, 'mail'), deps.config.MAIL_FROM),
    signal: deps.mail,
  });
}

/** Composition root: the only place that reads the environment. */
export async function start(env: Record<string, string | undefined>, shared?: SharedInfra) {
  const config = parseConfig(env);
  const parts = identityParts(config);
  const full = (deps: ServiceDeps<Database, Config>): IdentityDeps => ({ ...deps, ...parts });
  return startService(
    {
      name: SERVICE,
      schema: SERVICE,
      config,
      migrations,
      // BILLING, REQUESTS and ANALYSIS too: identity consumes their announcements and may start before them.
      streams: [STREAMS.identity, STREAMS.billing, STREAMS.requests, STREAMS.analysis],
      outbox: true,
      routes: (deps) => routes(full(deps)),
      formPaths: FORM_PATHS,
      rpc: (deps) => rpcHandlers(full(deps)),
      consumers: (deps) => [
        ...consumers(full(deps)),
        ...bookingConsumers(full(deps)),
        ...reviewConsumers(full(deps)),
      ],
      background: (deps) => [mailRelay(full(deps))],
    },
    shared,
  );
}

if (isEntrypoint(import.meta.url)) void runMain(() => start(process.env));
