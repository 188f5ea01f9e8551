import { Counter } from 'prom-client';
import type { Metrics } from '@meridian/observability';

/** Counters of the payment path, by outcome and reason (x402's reason, or ours). */
export interface PaymentMetrics {
  verifications: Counter<'outcome' | 'reason'>;
  settlements: Counter<'outcome' | 'reason'>;
  reconciliations: Counter<'action'>;
}

export function paymentMetrics(metrics: Metrics): PaymentMetrics {
  return {
    verifications: new Counter({
      name: 'x402_verifications_total',
      help: 'Payments verified: outcome valid, invalid or unavailable, by reason',
      labelNames: ['outcome', 'reason'],
      registers: [metrics.registry],
    }),
    settlements: new Counter({
      name: 'x402_settlements_total',
      help: 'Settlements: outcome settled, refused, pending or unavailable, by reason',
      labelNames: ['outcome', 'reason'],
      registers: [metrics.registry],
    }),
    reconciliations: new Counter({
      name: 'x402_reconciliations_total',
      help: 'Open payments looked at by reconciliation: settled, failed, release, wait or unreconciled',
      labelNames: ['action'],
      registers: [metrics.registry],
    }),
  };
}
