import { describe, expect, it } from '@jest/globals';
import { reconcile, type Observation } from '../../src/domain/reconciliation.js';

const HOUR = 3_600_000;
const seen = (o: Partial<Observation>): Observation => ({
  state: 'settling',
  chain: { kind: 'absent' },
  facilitator: { kind: 'not_asked' },
  ageMs: 5 * 60_000,
  ...o,
});

describe('reconciling an open payment', () => {
  it('takes what the chain shows first: landed is settled, landed failed is failed', () => {
    const landed = { kind: 'landed', signature: 'sig', failed: false } as const;
    expect(
      reconcile(seen({ chain: landed, facilitator: { kind: 'unreachable', detail: 'x' } }), HOUR),
    ).toEqual({
      action: 'settled',
      transaction: 'sig',
    });
    expect(reconcile(seen({ chain: { ...landed, failed: true } }), HOUR)).toEqual({
      action: 'failed',
      reason: 'transaction_failed',
      transaction: 'sig',
    });
  });

  it('gives a never-sent claim back only when the chain says it did not land', () => {
    expect(reconcile(seen({ facilitator: { kind: 'valid' } }), HOUR)).toEqual({ action: 'release' });
    expect(
      reconcile(
        seen({ chain: { kind: 'unknown', detail: 'no SOLANA_RPC_URL' }, facilitator: { kind: 'valid' } }),
        HOUR,
      ),
    ).toEqual({ action: 'wait', reason: 'chain unknown: no SOLANA_RPC_URL' });
  });

  it('closes as failed what the facilitator refuses and the chain never saw', () => {
    expect(
      reconcile(seen({ facilitator: { kind: 'invalid', reason: 'transaction_simulation_failed' } }), HOUR),
    ).toEqual({ action: 'failed', reason: 'transaction_simulation_failed', transaction: null });
  });

  it('settles a pending payment the facilitator settles again, and waits while it stays pending', () => {
    const pending = seen({ state: 'pending' });
    expect(
      reconcile({ ...pending, facilitator: { kind: 'settled', transaction: 'sig', payer: 'p' } }, HOUR),
    ).toEqual({ action: 'settled', transaction: 'sig', payer: 'p' });
    expect(
      reconcile(
        { ...pending, facilitator: { kind: 'refused', reason: 'settlement_pending', transaction: 'sig' } },
        HOUR,
      ),
    ).toMatchObject({ action: 'wait' });
  });

  it('leaves an open question to an operator once it is older than the bound', () => {
    const down = seen({ facilitator: { kind: 'unreachable', detail: 'connection refused' } });
    expect(reconcile(down, HOUR)).toMatchObject({ action: 'wait' });
    expect(reconcile({ ...down, ageMs: HOUR }, HOUR)).toEqual({
      action: 'unreconciled',
      reason: 'facilitator unreachable: connection refused',
    });
  });
});
