/**
 * Money in the words people use. The API names a network by its CAIP-2 id and a token by its mint
 * address; this is the one place that turns them into words, so no page shows a bare id as the
 * only label. An id not listed here is shown as what it is: not a network we know, never mainnet.
 */
const NETWORKS: Record<string, { name: string; real: boolean }> = {
  'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp': { name: 'Solana', real: true },
  'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1': { name: 'Solana devnet', real: false },
};

/** USDC's mint on each network above: a deposit is recognised by its mint, never by a symbol. */
const USDC_MINTS = new Set([
  'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
  '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
]);

export interface MoneyWords {
  /** e.g. "USDC on Solana" or "USDC on Solana devnet". */
  label: string;
  /** What the network is, said plainly: real money, or a test or local chain. */
  note: string;
  real: boolean;
}

export function moneyWords(asset: string, network: string): MoneyWords {
  const known = NETWORKS[network];
  const token = USDC_MINTS.has(asset) ? 'USDC' : 'a token';
  if (known?.real)
    return { label: `${token} on ${known.name}`, note: 'Solana mainnet: real money.', real: true };
  if (known)
    return {
      label: `${token} on ${known.name}`,
      note: `${known.name} is a test network, not mainnet: its USDC is not real money.`,
      real: false,
    };
  const chain = network.split(':')[0] || 'an unknown chain';
  const name = chain === 'solana' ? 'a local Solana chain' : `a ${chain} network`;
  return {
    label: `${token} on ${name}`,
    note: `This is ${name} we do not know as mainnet (${network}): treat it as a test chain, not real money.`,
    real: false,
  };
}

/** Atomic units (1 USD = 1 000 000) as dollars, exact: every non-zero digit kept, at least cents. */
export function dollars(atomic: number): string {
  const sign = atomic < 0 ? '-' : '';
  const abs = Math.abs(atomic);
  const fraction = String(abs % 1_000_000)
    .padStart(6, '0')
    .replace(/0{1,4}$/, '');
  return `${sign}$${Math.floor(abs / 1_000_000)}.${fraction.padEnd(2, '0')}`;
}

/** A ledger or history reason as a person says it; an unknown one is shown as the API gives it. */
const REASONS: Record<string, string> = {
  report: 'Audit report',
  topup_usdc: 'Top-up (USDC)',
  topup_manual: 'Top-up recorded by an operator',
  admin_grant: 'Operator grant',
  admin_revoke: 'Credit taken back by an operator',
  refund: 'Refund',
  subscription: 'Audit subscription',
  data_plan: 'Data plan',
  booking: 'Consulting booking',
  report_payment: 'Audit report paid on chain',
  booking_payment: 'Consulting booking paid on chain',
};

/**
 * A ledger or billing-history line in words. Billing gives back the unused part of a plan or
 * subscription when it is changed, as a `refund` under the new purchase's order (`sub-…`): that is
 * a plan change credit, not a refund a person asked for.
 */
export function reasonWords(reason: string, ref?: string | null): string {
  if (reason === 'refund' && ref?.startsWith('sub-')) return 'Plan change credit';
  return REASONS[reason] ?? reason.replace(/_/g, ' ');
}
