import { randomInt } from 'node:crypto';
import { generateSecret, generateURI, verify } from 'otplib';

/** RFC 6238 as authenticator apps expect it: SHA-1, 6 digits, 30-second steps. */
export const TOTP = { algorithm: 'sha1', digits: 6, period: 30 } as const;
/** One step of drift either way. */
const TOLERANCE_SECONDS = TOTP.period;
export const RECOVERY_CODE_COUNT = 10;

export type TwoFactorState = 'off' | 'pending' | 'active';

export function newTotpSecret(): string {
  return generateSecret({ length: 20 });
}

export function otpauthUri(secret: string, issuer: string, label: string): string {
  return generateURI({ issuer, label, secret, ...TOTP });
}

/**
 * The time step a code matched, or undefined. `afterStep` is the last step already accepted for
 * this account: a code of that step or earlier is refused, so a code works once.
 */
export async function acceptedStep(
  secret: string,
  code: string,
  afterStep: number | null,
  now = Date.now(),
): Promise<number | undefined> {
  if (!/^\d{6}$/.test(code)) return undefined;
  const result = await verify({
    secret,
    token: code,
    ...TOTP,
    epoch: Math.floor(now / 1000),
    epochTolerance: TOLERANCE_SECONDS,
    ...(afterStep !== null ? { afterTimeStep: afterStep } : {}),
  });
  return result.valid && 'timeStep' in result ? result.timeStep : undefined;
}

export const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/**
 * Ten codes of 16 characters (about 79 bits each), grouped by four for reading. randomInt draws
 * each character uniformly; a byte modulo 31 would favour the first eight letters.
 */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const chars = Array.from(
      { length: 16 },
      () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)],
    ).join('');
    return chars.match(/.{4}/g)!.join('-');
  });
}

/** What a person may type: any case, with or without dashes and spaces. */
export function normaliseRecoveryCode(input: string): string {
  return input.toLowerCase().replace(/[\s-]/g, '');
}
