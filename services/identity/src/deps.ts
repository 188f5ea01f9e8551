import type { ServiceDeps } from '@meridian/runtime';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import type { OidcRegistry } from './adapters/oidc.js';
import type { Semaphore } from './flows/passwords.js';
import type { MailSignal } from './jobs/mail-relay.js';

/** What every part of this service gets: the chassis' deps and identity's own. */
export interface IdentityDeps extends ServiceDeps<Database, Config> {
  /** AES-256 key that seals TOTP secrets at rest. */
  totpKey: Buffer;
  mail: MailSignal;
  oidc: OidcRegistry;
  /** Password hashes take turns (PASSWORD_HASH_CONCURRENCY at once). */
  passwordHashing: Semaphore;
}

export const SERVICE = 'identity';
