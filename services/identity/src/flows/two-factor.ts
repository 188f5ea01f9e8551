import type { Kysely } from 'kysely';
import QRCode from 'qrcode';
import { z } from 'zod';
import { httpProblem, parseInput } from '@meridian/http-kit';
import type { Database } from '../db/database.js';
import { findAccountById, type AccountRow } from '../db/repositories/accounts.js';
import {
  claimTotpStep,
  countChallengeAttempt,
  countUnusedRecoveryCodes,
  insertChallenge,
  lockChallenge,
  markChallengeUsed,
  replaceRecoveryCodes,
  setTwoFactor,
  useRecoveryCode,
} from '../db/repositories/two-factor.js';
import { clearThrottle } from '../db/repositories/throttle.js';
import { hashToken, newToken } from '../domain/secrets.js';
import { open, seal } from '../domain/secret-box.js';
import {
  acceptedStep,
  newRecoveryCodes,
  newTotpSecret,
  normaliseRecoveryCode,
  otpauthUri,
  TOTP,
} from '../domain/totp.js';
import type { IdentityDeps } from '../deps.js';
import { startSession, type NewSession } from './sessions.js';
import {
  assertSecondFactorAllowed,
  clearSecondFactorFailures,
  loginEmailScope,
  recordSecondFactorFailure,
} from './throttle.js';

const CHALLENGE_TTL_MS = 5 * 60 * 1000;
const CHALLENGE_ATTEMPTS = 5;

/** A second factor: a current TOTP code, or one of the recovery codes. */
export const factorInput = z
  .object({
    code: z
      .string()
      .regex(/^\d{6}$/, 'six digits')
      .optional(),
    recovery_code: z.string().min(8).max(64).optional(),
  })
  .refine((f) => f.code !== undefined || f.recovery_code !== undefined, {
    message: 'code or recovery_code is required',
    path: ['code'],
  });
type Factor = z.infer<typeof factorInput>;

const sealContext = (accountId: string) => `totp:${accountId}`;

export async function twoFactorStatus(deps: IdentityDeps, accountId: string) {
  const account = await mustFind(deps.db, accountId);
  return {
    state: account.totp_state,
    enabled: account.totp_state === 'active',
    recovery_codes_left:
      account.totp_state === 'active' ? await countUnusedRecoveryCodes(deps.db, accountId) : 0,
  };
}

/** Begins (or restarts) enrolment: a new secret, its otpauth URI and a QR code of it. */
export async function enrol(deps: IdentityDeps, accountId: string) {
  const account = await mustFind(deps.db, accountId);
  if (account.totp_state === 'active')
    throw httpProblem('conflict', 'Two-factor sign-in is already active; disable it first.');
  const secret = newTotpSecret();
  await setTwoFactor(deps.db, accountId, {
    totp_state: 'pending',
    totp_secret_sealed: seal(deps.totpKey, secret, sealContext(accountId)),
    totp_last_step: null,
  });
  const uri = otpauthUri(secret, deps.config.TOTP_ISSUER, account.email ?? account.nickname ?? accountId);
  return {
    state: 'pending' as const,
    secret,
    otpauth_uri: uri,
    qr_svg: await QRCode.toString(uri, { type: 'svg', margin: 1 }),
    qr_data_url: await QRCode.toDataURL(uri),
    ...TOTP,
  };
}

/** The first valid code activates; answers the ten recovery codes, shown this once. */
export async function activate(deps: IdentityDeps, accountId: string, body: unknown) {
  const { code } = parseInput(z.object({ code: z.string().regex(/^\d{6}$/, 'six digits') }), body);
  return deps.db.transaction().execute(async (trx) => {
    const account = await mustFind(trx, accountId, true);
    if (account.totp_state !== 'pending')
      throw httpProblem('conflict', 'No enrolment is in progress; POST /v1/account/2fa/enrol first.');
    if (!(await totpAccepted(deps, trx, account, code))) throw wrongFactor();
    await setTwoFactor(trx, accountId, {
      totp_state: 'active',
      totp_secret_sealed: account.totp_secret_sealed,
    });
    return { state: 'active' as const, recovery_codes: await freshRecoveryCodes(trx, accountId) };
  });
}

export async function disable(deps: IdentityDeps, accountId: string, body: unknown) {
  const factor = parseInput(factorInput, body);
  return withActiveFactor(deps, accountId, factor, async (trx) => {
    await setTwoFactor(trx, accountId, { totp_state: 'off', totp_secret_sealed: null, totp_last_step: null });
    await replaceRecoveryCodes(trx, accountId, []);
    return { state: 'off' as const };
  });
}

/** POST /v1/account/2fa/recovery-codes: a current code buys ten new codes; the old ones stop working. */
export async function regenerateRecoveryCodes(deps: IdentityDeps, accountId: string, body: unknown) {
  const { code } = parseInput(z.object({ code: z.string().regex(/^\d{6}$/, 'six digits') }), body);
  return withActiveFactor(deps, accountId, { code }, async (trx) => ({
    recovery_codes: await freshRecoveryCodes(trx, accountId),
  }));
}

/**
 * Runs `change` when the factor is right, under the account's lock and its second-factor limit. A
 * wrong factor is counted (committed, not rolled back) before the 401.
 */
async function withActiveFactor<T>(
  deps: IdentityDeps,
  accountId: string,
  factor: Factor,
  change: (trx: Kysely<Database>) => Promise<T>,
): Promise<T> {
  const outcome = await deps.db.transaction().execute(async (trx) => {
    const account = await mustFind(trx, accountId, true);
    if (account.totp_state !== 'active') throw httpProblem('conflict', 'Two-factor sign-in is not active.');
    await assertSecondFactorAllowed(trx, accountId);
    if (!(await factorAccepted(deps, trx, account, factor))) {
      await recordSecondFactorFailure(deps, trx, accountId);
      return { wrong: true } as const;
    }
    await clearSecondFactorFailures(trx, accountId);
    return { done: await change(trx) };
  });
  if ('wrong' in outcome) throw wrongFactor();
  return outcome.done;
}

/** The second step of a sign-in whose first factor (a password, an OpenID provider) was given. */
export async function startChallenge(db: Kysely<Database>, accountId: string, method: 'password' | 'oidc') {
  const token = newToken();
  const expiresAt = new Date(Date.now() + CHALLENGE_TTL_MS);
  await insertChallenge(db, {
    token_hash: hashToken(token),
    account_id: accountId,
    expires_at: expiresAt,
    method,
  });
  return { challenge: token, challenge_expires_at: expiresAt.toISOString() };
}

const challengeInput = z.object({ challenge: z.string().min(20).max(128).optional() }).and(factorInput);

/**
 * Completes a login challenge, named in the body or (an OpenID sign-in) by the challenge cookie;
 * five wrong answers burn it, and the person signs in again.
 */
export async function completeChallenge(
  deps: IdentityDeps,
  body: unknown,
  fromCookie: string | undefined,
): Promise<NewSession> {
  const input = parseInput(challengeInput, body);
  const token = input.challenge ?? fromCookie;
  if (!token)
    throw httpProblem('validation_failed', 'challenge is required (or the challenge cookie).', {
      errors: [{ path: 'body.challenge', message: 'Required' }],
    });
  const outcome = await deps.db.transaction().execute(async (trx) => {
    const now = new Date();
    const challenge = await lockChallenge(trx, hashToken(token), now);
    if (!challenge || challenge.attempts >= CHALLENGE_ATTEMPTS) return 'expired' as const;
    const account = await mustFind(trx, challenge.account_id, true);
    await assertSecondFactorAllowed(trx, account.id);
    // Counted before the check, under the challenge's lock: parallel answers take turns.
    await countChallengeAttempt(trx, challenge.token_hash);
    if (account.totp_state !== 'active' || !(await factorAccepted(deps, trx, account, input))) {
      await recordSecondFactorFailure(deps, trx, account.id);
      return 'wrong' as const;
    }
    await clearSecondFactorFailures(trx, account.id);
    // Only now has the whole sign-in succeeded: the email's failed-password count may go.
    if (account.email) await clearThrottle(trx, loginEmailScope(account.email));
    await markChallengeUsed(trx, challenge.token_hash, now);
    return startSession(trx, deps, account.id, challenge.method);
  });
  if (outcome === 'wrong') throw wrongFactor();
  if (outcome === 'expired')
    throw httpProblem('unauthorized', 'The sign-in challenge is unknown, used or expired; sign in again.', {
      category: 'challenge_expired',
    });
  return outcome;
}

async function factorAccepted(
  deps: IdentityDeps,
  trx: Kysely<Database>,
  account: AccountRow,
  factor: Factor,
) {
  if (factor.code !== undefined) return totpAccepted(deps, trx, account, factor.code);
  const hash = hashToken(normaliseRecoveryCode(factor.recovery_code ?? ''));
  return useRecoveryCode(trx, account.id, hash, new Date());
}

/** A valid code of a step later than the last one accepted; the step is recorded, so it works once. */
async function totpAccepted(deps: IdentityDeps, trx: Kysely<Database>, account: AccountRow, code: string) {
  if (!account.totp_secret_sealed) return false;
  const secret = open(deps.totpKey, account.totp_secret_sealed, sealContext(account.id));
  const step = await acceptedStep(
    secret,
    code,
    account.totp_last_step === null ? null : Number(account.totp_last_step),
  );
  return step !== undefined && (await claimTotpStep(trx, account.id, step));
}

async function freshRecoveryCodes(trx: Kysely<Database>, accountId: string): Promise<string[]> {
  const codes = newRecoveryCodes();
  await replaceRecoveryCodes(
    trx,
    accountId,
    codes.map((c) => hashToken(normaliseRecoveryCode(c))),
  );
  return codes;
}

async function mustFind(db: Kysely<Database>, accountId: string, lock = false): Promise<AccountRow> {
  const account = lock
    ? await db.selectFrom('accounts').selectAll().where('id', '=', accountId).forUpdate().executeTakeFirst()
    : await findAccountById(db, accountId);
  if (!account) throw httpProblem('unauthorized', 'A valid session is required.');
  return account as AccountRow;
}

const wrongFactor = () =>
  httpProblem('unauthorized', 'The code is wrong, expired or already used.', { category: 'invalid_code' });
