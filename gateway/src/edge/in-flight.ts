import type { Problem } from '@meridian/contracts';
import { problem } from '@meridian/http-kit';
import { addressBucket } from '../domain/client-address.js';

/**
 * Requests in flight per client address (an IPv6 address by its /64), on this replica. One
 * address may hold at most `max` at once, well below a service's pool of upstream sockets, so
 * one client that stalls or floods cannot take every connection to a service from the others.
 */
export class InFlightGate {
  private readonly counts = new Map<string, number>();

  constructor(private readonly max: number) {}

  /** Takes a place for `address`, or answers the 429 when it holds all of its own. */
  enter(address: string): { leave: () => void } | { refused: Problem } {
    const key = addressBucket(address);
    const held = this.counts.get(key) ?? 0;
    if (held >= this.max)
      return {
        refused: problem('rate_limit', `At most ${this.max} requests of one address at once; retry.`, {
          retryAfter: 1,
        }),
      };
    this.counts.set(key, held + 1);
    let left = false;
    return {
      leave: () => {
        if (left) return;
        left = true;
        const now = this.counts.get(key)! - 1;
        if (now === 0) this.counts.delete(key);
        else this.counts.set(key, now);
      },
    };
  }
}
