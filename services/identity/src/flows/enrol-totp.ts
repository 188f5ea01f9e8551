import { ok, refuse } from '@meridian/contracts';
import { setTwoFactor } from '../db/repositories/two-factor.js';
import { seal } from '@meridian/runtime';
import { newTotpSecret, otpauthUri, TOTP } from '../domain/totp.js';
import type { IdentityDeps } from '../deps.js';
import { reconfirmOwner, type Reconfirmation } from './reconfirm.js';
import { accountOf, noAccount, sealContext } from './second-factor.js';

/**
 * Begins (or restarts) enrolment: a new secret, its otpauth URI and a QR code of it. The owner
 * confirms it is them first (reconfirm.ts): a second factor a session thief turned on would lock
 * the owner out.
 */
export async function enrolTotp(deps: IdentityDeps, accountId: string, owner: Reconfirmation) {
  const account = await accountOf(deps.db, accountId);
  if (!account) return noAccount();
  if (account.totp_state === 'active')
    return refuse('conflict', 'Two-factor sign-in is already active; disable it first.');
  const confirmed = await reconfirmOwner(deps, account, owner);
  if (!confirmed.ok) return confirmed;
  const secret = newTotpSecret();
  await setTwoFactor(deps.db, accountId, {
    totp_state: 'pending',
    totp_secret_sealed: seal(deps.totpKey, secret, sealContext(accountId)),
    totp_last_step: null,
  });
  // qrcode is loaded at the first enrolment, not at start: most processes never draw a QR code.
  const { default: QRCode } = await import('qrcode');
  const uri = otpauthUri(secret, deps.config.TOTP_ISSUER, account.email ?? account.nickname ?? accountId);
  return ok({
    state: 'pending' as const,
    secret,
    otpauth_uri: uri,
    qr_svg: await QRCode.toString(uri, { type: 'svg', margin: 1 }),
    qr_data_url: await QRCode.toDataURL(uri),
    ...TOTP,
  });
}
