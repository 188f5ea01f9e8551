import bcrypt from 'bcrypt';
import { refuse } from '@meridian/contracts';
import { checkPassword, preHashPassword } from '../domain/password.js';
import type { WeakPassword } from './outcome.js';

export async function hashPassword(password: string, cost: number): Promise<string> {
  return bcrypt.hash(preHashPassword(password), cost);
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
  dummyHash ??= bcrypt.hash('not-a-password', cost);
  const target = hash ?? (await dummyHash);
  const matches = await bcrypt.compare(preHashPassword(password), target);
  return matches && hash !== null && hash !== undefined;
}

/** The password policy (domain/password.ts) with the email's parts as context. */
export function weakPassword(password: string, email: string): WeakPassword | undefined {
  const verdict = checkPassword(password, [email, ...email.split(/[@.]/)]);
  return verdict.ok ? undefined : refuse('weak_password', verdict.detail);
}
