import { startPeriodic, type Periodic } from '@meridian/runtime';
import type { X402Deps } from '../deps.js';
import { reconcilePayments } from '../flows/reconcile-payments.js';

/**
 * Reconciliation of payments a crash or a facilitator left open, every RECONCILE_EVERY_MS on every
 * replica (its writes are conditional, so side by side they close a payment once). A failed pass
 * is logged and the next tick starts again.
 */
export function startReconciliation(deps: X402Deps): Periodic {
  return startPeriodic(
    async () => {
      await reconcilePayments(deps);
    },
    deps.config.RECONCILE_EVERY_MS,
    (err) =>
      deps.logger.warn(
        { error: err instanceof Error ? err.message : String(err) },
        'payment reconciliation pass failed; retrying at the next tick',
      ),
  );
}
