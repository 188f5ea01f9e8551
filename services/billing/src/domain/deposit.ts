/** A transfer of the deposit asset into the deposit account, read at `finalized` commitment. */
export interface ObservedDeposit {
  tx_signature: string;
  slot: number;
  block_time: Date | null;
  amount_atomic: number;
  memo: string | null;
}

/**
 * What a deposit's memo makes of it (portal 2.3): `top-<account_id>` adds credit; a bare account
 * id is the retired subscription rail, recorded but never credited; any other memo may name an
 * order of analysis or requests (looked up by the caller); the rest is unmatched.
 */
export type MemoMeaning =
  | { kind: 'topup'; account_id: string }
  | { kind: 'retired_rail'; account_id: string }
  | { kind: 'order'; order_id: string }
  | { kind: 'unmatched' };

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const TOPUP = new RegExp(`^top-(${UUID})$`);
const BARE_ACCOUNT = new RegExp(`^${UUID}$`);
/** Order ids as analysis and requests mint them: a short prefix, a dash and an id. */
const ORDER = /^[a-z]{2,16}-[A-Za-z0-9_-]{6,64}$/;

export function memoMeaning(memo: string | null): MemoMeaning {
  const text = memo?.trim().toLowerCase() ?? '';
  const topup = TOPUP.exec(text);
  if (topup) return { kind: 'topup', account_id: topup[1]! };
  if (BARE_ACCOUNT.test(text)) return { kind: 'retired_rail', account_id: text };
  const original = memo?.trim() ?? '';
  if (ORDER.test(original)) return { kind: 'order', order_id: original };
  return { kind: 'unmatched' };
}

/** The memo a person writes to top up this account (portal 2.3: exactly top-<account_id>). */
export const topupMemo = (accountId: string): string => `top-${accountId}`;
