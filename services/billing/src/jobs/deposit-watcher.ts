import { Counter } from 'prom-client';
import { USDC_MINTS } from '@meridian/contracts';
import type { Logger, Metrics } from '@meridian/observability';
import { startPeriodic, type Periodic } from '@meridian/runtime';
import type { DepositReader } from '../adapters/solana-rpc.js';
import type { BillingDeps } from '../deps.js';
import type { ObservedDeposit } from '../domain/deposit.js';
import { advanceCursor, readCursor, recordDeposit } from '../flows/record-deposit.js';

/** The ledger side of the watcher: the record-deposit flows, bound to the service's deps. */
export interface DepositBook {
  readCursor(watched: string): Promise<string | null>;
  /** Records the deposit (idempotent by signature) and moves the cursor to it, in one transaction. */
  recordDeposit(watched: string, deposit: ObservedDeposit): Promise<unknown>;
  /** Moves the cursor past a transaction that is no deposit. */
  advanceCursor(watched: string, signature: string): Promise<void>;
}

export function depositBook(deps: BillingDeps): DepositBook {
  return {
    readCursor: (watched) => readCursor(deps, watched),
    recordDeposit: (watched, deposit) => recordDeposit(deps, watched, deposit),
    advanceCursor: (watched, signature) => advanceCursor(deps, watched, signature),
  };
}

interface WatcherCounters {
  transactions: Counter<'outcome'>;
  errors: Counter;
}

/** The watcher's counters, registered once per registry (a restarted watcher counts on). */
function countersOf(metrics: Metrics): WatcherCounters {
  const { registry } = metrics;
  const transactions =
    (registry.getSingleMetric('billing_deposit_transactions_total') as Counter<'outcome'> | undefined) ??
    new Counter({
      name: 'billing_deposit_transactions_total',
      help: 'Transactions of the deposit account the watcher read: recorded deposits, and those that are none by reason',
      labelNames: ['outcome'],
      registers: [registry],
    });
  const errors =
    (registry.getSingleMetric('billing_deposit_watcher_errors_total') as Counter | undefined) ??
    new Counter({
      name: 'billing_deposit_watcher_errors_total',
      help: 'Watcher ticks that failed (node unreachable, malformed answer, database) and were retried',
      registers: [registry],
    });
  return { transactions, errors };
}

/**
 * One pass: every transaction of the deposit account newer than the cursor, oldest first. A
 * deposit is recorded together with the cursor (so a pass stopped anywhere resumes without loss or
 * double credit); a transaction that is none moves the cursor past it. `stopping` ends the pass
 * before anything of a transaction is written. Answers how many transactions it handled.
 */
export async function watchOnce(
  reader: DepositReader,
  book: DepositBook,
  options: { counters?: WatcherCounters; logger?: Logger; stopping?: () => boolean } = {},
): Promise<number> {
  const cursor = await book.readCursor(reader.watched);
  const seen = await reader.newSignatures(cursor);
  let handled = 0;
  for (const { signature, failed } of seen) {
    if (options.stopping?.()) break;
    const observation = failed ? ({ notDeposit: 'failed' } as const) : await reader.observe(signature);
    // A stop asked while the node answered: nothing of this transaction is written; the next start reads it again.
    if (options.stopping?.()) break;
    if ('deposit' in observation) {
      await book.recordDeposit(reader.watched, observation.deposit);
      options.counters?.transactions.inc({ outcome: 'deposit' });
      options.logger?.info(
        {
          tx_signature: signature,
          amount_atomic: observation.deposit.amount_atomic,
          slot: observation.deposit.slot,
        },
        'deposit recorded',
      );
    } else {
      await book.advanceCursor(reader.watched, signature);
      options.counters?.transactions.inc({ outcome: observation.notDeposit });
      options.logger?.debug({ tx_signature: signature, reason: observation.notDeposit }, 'not a deposit');
    }
    handled += 1;
  }
  return handled;
}

/** The RPC URL without what may be a provider's key (userinfo, path, query), for logs. */
function redactor(url: string): (text: string) => string {
  const parsed = new URL(url);
  const secrets = [url, parsed.href, parsed.username, parsed.password, parsed.search, parsed.pathname]
    .filter((part) => part.length > 1)
    .sort((a, b) => b.length - a.length);
  return (text) => secrets.reduce((out, secret) => out.split(secret).join('[rpc]'), text);
}

/**
 * Background task of the service when SOLANA_RPC_URL and DEPOSIT_ADDRESS are set: a pass every
 * DEPOSIT_POLL_MS. A failed pass is logged (without the URL) and retried at the next tick, from the cursor.
 */
export function startDepositWatcher(
  deps: BillingDeps,
  overrides: { reader?: DepositReader; book?: DepositBook } = {},
): Periodic | undefined {
  const { SOLANA_RPC_URL: url, DEPOSIT_ADDRESS: owner, SOLANA_NETWORK: network } = deps.config;
  if (!url || !owner) return undefined;
  const mint = USDC_MINTS[network]!;
  // @solana/web3.js (~7 MB of heap) is loaded only by a billing that watches deposits.
  const reader: Promise<DepositReader> = overrides.reader
    ? Promise.resolve(overrides.reader)
    : import('../adapters/solana-rpc.js').then((rpc) => rpc.solanaDepositReader({ url, owner, mint }));
  const book = overrides.book ?? depositBook(deps);
  const counters = countersOf(deps.metrics);
  const redact = redactor(url);
  let stopped = false;
  void reader.then(
    (r) => deps.logger.info({ watched: r.watched, owner, mint, network }, 'deposit watcher started'),
    () => undefined, // reported by every pass below
  );
  const periodic = startPeriodic(
    async () => {
      await watchOnce(await reader, book, { counters, logger: deps.logger, stopping: () => stopped });
    },
    deps.config.DEPOSIT_POLL_MS,
    (err) => {
      counters.errors.inc();
      const message = redact(err instanceof Error ? err.message : String(err));
      deps.logger.warn({ error: message }, 'deposit watcher pass failed; retrying at the next tick');
    },
  );
  return {
    settled: () => periodic.settled(),
    stop: async () => {
      stopped = true;
      await periodic.stop();
    },
  };
}
