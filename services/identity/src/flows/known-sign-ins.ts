import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import {
  isKnownAddress,
  isKnownDevice,
  recordAddress,
  recordDevice,
} from '../db/repositories/known-sign-ins.js';
import { hashToken, newToken } from '../domain/secrets.js';

/** How long a browser or a client address stays known after the account's last sign-in from it. */
export const KNOWN_FOR_MS = 90 * 24 * 3600 * 1000;

/** Where a sign-in attempt comes from: the device cookie's token it carries, the client address. */
export interface SignInPlace {
  device: string | undefined;
  address: string;
}

/**
 * How an attempt is known to the account of its email: from a browser that signed in to it before
 * (the device token's hash), else from an address that did, else not at all.
 */
export type SignInTrust = { kind: 'device'; tokenHash: string } | { kind: 'address' } | undefined;

const knownSince = () => new Date(Date.now() - KNOWN_FOR_MS);

export async function trustOf(
  db: Kysely<Database>,
  accountId: string,
  place: SignInPlace,
): Promise<SignInTrust> {
  const since = knownSince();
  if (place.device) {
    const tokenHash = hashToken(place.device);
    if (await isKnownDevice(db, accountId, tokenHash, since)) return { kind: 'device', tokenHash };
  }
  return (await isKnownAddress(db, accountId, place.address, since)) ? { kind: 'address' } : undefined;
}

/**
 * A sign-in completed (or the mailed unlock link was used, `address` undefined then): the browser
 * and the address become known to the account. Answers the device token the browser keeps: its
 * own when it is already known to this account, else a new one, so a token planted in a browser
 * by someone else never becomes trusted.
 */
export async function rememberSignIn(
  trx: Kysely<Database>,
  accountId: string,
  place: { device: string | undefined; address: string | undefined },
): Promise<string> {
  const now = new Date();
  const known = place.device && (await isKnownDevice(trx, accountId, hashToken(place.device), knownSince()));
  const token = known ? place.device! : newToken();
  await recordDevice(trx, accountId, hashToken(token), now);
  if (place.address) await recordAddress(trx, accountId, place.address, now);
  return token;
}
