import type { z } from 'zod';
import { ATOMIC_PER_USD, ok, type creditsAnswerSchema, type Result } from '@meridian/contracts';
import { entriesPage, readBalance } from '../db/repositories/ledger.js';
import { directionOf } from '../domain/ledger.js';
import { topupMemo } from '../domain/deposit.js';
import type { BillingDeps } from '../deps.js';
import { depositTarget } from './topup.js';

type CreditsAnswer = z.infer<typeof creditsAnswerSchema>;

/**
 * The credits answer of portal 2.3: the balance over the whole ledger (its own row, kept with every
 * entry), one page of entries newest first, and how to top up. Balance and page are read in one
 * snapshot so the page never shows an entry the balance does not include. Refused (`deposits_off`)
 * when the deployment has no deposit address: the answer's top-up is never one no one can pay to.
 */
export async function readCredits(
  deps: BillingDeps,
  accountId: string,
  page: { limit: number; before?: number },
): Promise<Result<CreditsAnswer, 'deposits_off'>> {
  const target = depositTarget(deps.config);
  if (!target.ok) return target;
  const { balance, rows } = await deps.db
    .transaction()
    .setIsolationLevel('repeatable read')
    .setAccessMode('read only')
    .execute(async (trx) => ({
      balance: await readBalance(trx, accountId),
      // One row more than asked tells whether a next page exists.
      rows: await entriesPage(trx, accountId, page.limit + 1, page.before),
    }));
  const entries = rows.slice(0, page.limit);
  return ok({
    balance_atomic: balance,
    balance_usd: balance / ATOMIC_PER_USD,
    entries: entries.map((e) => ({
      id: e.id,
      created_at: e.created_at.toISOString(),
      delta_atomic: e.delta_atomic,
      direction: directionOf(e.delta_atomic),
      reason: e.reason as CreditsAnswer['entries'][number]['reason'],
      ref: e.ref,
      actor: e.actor,
    })),
    next_before: rows.length > page.limit ? entries[entries.length - 1]!.id : null,
    topup: {
      deposit_address: target.value.deposit_address,
      memo: topupMemo(accountId),
      asset: target.value.asset,
      network: target.value.network,
    },
  });
}
