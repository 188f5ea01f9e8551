/** The caller assertion a bench sends straight to a service, signed as the gateway signs it. */
import type { Caller } from '@meridian/contracts';
import { assertionKey, signCallerAssertion } from '@meridian/http-kit';

/**
 * An assertion of `caller` under the run's INTERNAL_AUTH_SECRET, renewed every 20 s (one lives
 * 60 s; the gateway reuses one for 30 s): `current()` is the latest, `stop()` ends the renewal.
 */
export async function renewedAssertion(
  secret: string,
  caller: Caller,
): Promise<{ current: () => string; stop: () => void }> {
  const key = assertionKey(secret);
  let assertion = await signCallerAssertion(caller, key);
  const refresh = setInterval(() => {
    void signCallerAssertion(caller, key).then((a) => (assertion = a));
  }, 20_000);
  return { current: () => assertion, stop: () => clearInterval(refresh) };
}

/** The caller the gateway asserts for an API key of an ultra account. */
export const ultraKeyCaller = (accountId: string, keyId: string): Caller => ({
  account_id: accountId,
  plan: 'ultra',
  auth: 'api_key',
  key_id: keyId,
  session_id: null,
});
