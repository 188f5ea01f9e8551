import type { IdentityDeps } from '../deps.js';
import { freshRecoveryCodes, withActiveFactor } from './second-factor.js';

/** A current code buys ten new recovery codes; the old ones stop working. */
export async function regenerateRecoveryCodes(deps: IdentityDeps, accountId: string, code: string) {
  return withActiveFactor(deps, accountId, { code }, async (trx) => ({
    recovery_codes: await freshRecoveryCodes(trx, accountId),
  }));
}
