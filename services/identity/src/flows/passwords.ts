import { refuse } from '@meridian/contracts';
import { checkPassword, preHashPassword } from '../domain/password.js';
import type { Config } from '../config.js';
import type { WeakPassword } from './outcome.js';

/** bcrypt (a native addon), loaded at the first hash or compare, not at start. */
const bcrypt = () => import('bcrypt').then((m) => m.default);

export async function hashPassword(password: string, cost: number): Promise<string> {
  return (await bcrypt()).hash(preHashPassword(password), cost);
}

/**
 * At most `size` tasks at once, the others waiting in arrival order. bcrypt runs on libuv's small
 * thread pool (4 threads): a flood of sign-ups hashing at once would queue every sign-in's compare
 * behind them, so hashes take turns here and compares keep the other threads.
 */
export class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active < this.size) this.active += 1;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await task();
    } finally {
      // The slot passes straight to the next waiter, so `active` only drops when none waits.
      const next = this.waiting.shift();
      if (next) next();
      else this.active -= 1;
    }
  }
}

/** What hashing in turn needs of the service's deps (IdentityDeps, which holds the semaphore). */
interface PasswordHashing {
  passwordHashing: Semaphore;
  config: Pick<Config, 'BCRYPT_COST'>;
}

/** A new password's hash, in turn with the other hashes of this process. */
export function hashInTurn(deps: PasswordHashing, password: string): Promise<string> {
  return deps.passwordHashing.run(() => hashPassword(password, deps.config.BCRYPT_COST));
}

let dummyHash: Promise<string> | undefined;

/**
 * Compares against the account's hash, or against a throwaway hash of the same cost when there
 * is no account (or no password), so an unknown email costs the same bcrypt time as a wrong password.
 */
export async function passwordMatches(
  password: string,
  hash: string | null | undefined,
  cost: number,
): Promise<boolean> {
  const { compare, hash: bcryptHash } = await bcrypt();
  dummyHash ??= bcryptHash('not-a-password', cost);
  const target = hash ?? (await dummyHash);
  const matches = await compare(preHashPassword(password), target);
  return matches && hash !== null && hash !== undefined;
}

/** The password policy (domain/password.ts) with the email's parts as context. */
export async function weakPassword(password: string, email: string): Promise<WeakPassword | undefined> {
  const verdict = await checkPassword(password, [email, ...email.split(/[@.]/)]);
  return verdict.ok ? undefined : refuse('weak_password', verdict.detail);
}
