import { createHmac } from 'node:crypto';
import type { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { ok, refuse, type Result } from '@meridian/contracts';

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 256;
/** zxcvbn score 0..4; below this the password is a known or easily guessed one. */
const MIN_SCORE = 3;

let estimator: Promise<ZxcvbnFactory> | undefined;

/** zxcvbn and its dictionaries (~10 MB resident), loaded at the first password checked, not at start. */
function zxcvbn(): Promise<ZxcvbnFactory> {
  estimator ??= Promise.all([import('@zxcvbn-ts/core'), import('@zxcvbn-ts/language-common')]).then(
    ([{ ZxcvbnFactory }, { adjacencyGraphs, dictionary }]) =>
      new ZxcvbnFactory({ dictionary, graphs: adjacencyGraphs }),
  );
  return estimator;
}

/**
 * Length 12..256 characters (code points), no composition rules (NIST 800-63B), refused when the
 * offline zxcvbn-ts dictionaries (common passwords, keyboard patterns) find it easy to guess.
 */
export async function checkPassword(password: string, context: string[] = []): Promise<Result<string>> {
  const length = [...password].length;
  if (length < PASSWORD_MIN)
    return refuse('validation_failed', `password: at least ${PASSWORD_MIN} characters`);
  if (length > PASSWORD_MAX)
    return refuse('validation_failed', `password: at most ${PASSWORD_MAX} characters`);
  const strength = (await zxcvbn()).check(password, context);
  if (strength.score < MIN_SCORE)
    return refuse(
      'validation_failed',
      'password: too common or too easy to guess; choose a longer, rarer one',
    );
  return ok(password);
}

/**
 * bcrypt reads at most 72 bytes and stops at a NUL, so a 256-character password would be
 * silently truncated. We pre-hash: bcrypt gets base64(HMAC-SHA256(domain key, password)),
 * 44 ASCII bytes, so every byte of the password counts. The HMAC key is a fixed domain
 * separator, so a leaked list of plain SHA-256 hashes cannot be "shucked" against our bcrypt.
 */
export function preHashPassword(password: string): string {
  return createHmac('sha256', 'meridian.identity.password.v1')
    .update(password.normalize('NFC'), 'utf8')
    .digest('base64');
}
