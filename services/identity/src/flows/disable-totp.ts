import { replaceRecoveryCodes, setTwoFactor } from '../db/repositories/two-factor.js';
import type { IdentityDeps } from '../deps.js';
import { withActiveFactor, type Factor } from './second-factor.js';

/** A current code or a recovery code turns the second factor off; its recovery codes go. */
export async function disableTotp(deps: IdentityDeps, accountId: string, factor: Factor) {
  return withActiveFactor(deps, accountId, factor, async (trx) => {
    await setTwoFactor(trx, accountId, { totp_state: 'off', totp_secret_sealed: null, totp_last_step: null });
    await replaceRecoveryCodes(trx, accountId, []);
    return { state: 'off' as const };
  });
}
