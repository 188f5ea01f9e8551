import { ok, type Result } from '@meridian/contracts';
import { countUnusedRecoveryCodes } from '../db/repositories/two-factor.js';
import type { TwoFactorState } from '../domain/totp.js';
import type { IdentityDeps } from '../deps.js';
import { accountOf, noAccount } from './second-factor.js';

export async function twoFactorStatus(
  deps: IdentityDeps,
  accountId: string,
): Promise<Result<{ state: TwoFactorState; enabled: boolean; recovery_codes_left: number }, 'unauthorized'>> {
  const account = await accountOf(deps.db, accountId);
  if (!account) return noAccount();
  const active = account.totp_state === 'active';
  return ok({
    state: account.totp_state,
    enabled: active,
    recovery_codes_left: active ? await countUnusedRecoveryCodes(deps.db, accountId) : 0,
  });
}
