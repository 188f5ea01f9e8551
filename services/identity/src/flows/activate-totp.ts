import { ok, refuse, type Result } from '@meridian/contracts';
import { setTwoFactor } from '../db/repositories/two-factor.js';
import type { IdentityDeps } from '../deps.js';
import { accountOf, freshRecoveryCodes, noAccount, totpAccepted, wrongFactor } from './second-factor.js';

/** The first valid code activates; answers the ten recovery codes, shown this once. */
export async function activateTotp(
  deps: IdentityDeps,
  accountId: string,
  code: string,
): Promise<
  Result<{ state: 'active'; recovery_codes: string[] }, 'unauthorized' | 'conflict' | 'invalid_code'>
> {
  return deps.db.transaction().execute(async (trx) => {
    const account = await accountOf(trx, accountId, true);
    if (!account) return noAccount();
    if (account.totp_state !== 'pending')
      return refuse('conflict', 'No enrolment is in progress; POST /v1/account/2fa/enrol first.');
    if (!(await totpAccepted(deps, trx, account, code))) return wrongFactor();
    await setTwoFactor(trx, accountId, {
      totp_state: 'active',
      totp_secret_sealed: account.totp_secret_sealed,
    });
    return ok({ state: 'active' as const, recovery_codes: await freshRecoveryCodes(trx, accountId) });
  });
}
