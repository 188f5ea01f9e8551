import { decide, type BucketPolicy, type RateDecision } from './token-bucket.js';

/**
 * Tokens a replica took from a shared bucket beyond the one its call needed, spent by its next
 * calls of that bucket without asking Redis again, until they run out or LEASE_MS passes. The
 * shared bucket already counts them as spent, so the replicas together never admit more than
 * the bucket holds; what a lease may cost is that another replica is refused while tokens sit
 * here unspent, at most `spare` tokens for LEASE_MS. Leases are small where that would matter:
 * a take asks for 1/LEASE_DIVISOR of the bucket's level (at most MAX_LEASE), so a bucket below
 * 2 × LEASE_DIVISOR tokens is taken one token at a time, as exactly as without leases.
 */
export interface Lease {
  /** Tokens left to spend here. */
  spare: number;
  /** The shared bucket's level once it granted them (for the RateLimit fields). */
  level: number;
  expiresAt: number;
  /** The policy it was granted under: a plan that changed takes no token of the old one. */
  policy: BucketPolicy;
}

export const LEASE_MS = 250;
export const MAX_LEASE = 64;
export const LEASE_DIVISOR = 16;

/** Whether the lease may give a call its token now. */
export function leaseLive(lease: Lease | undefined, policy: BucketPolicy, now: number): lease is Lease {
  return lease !== undefined && lease.spare >= 1 && lease.expiresAt > now && lease.policy === policy;
}

/** Spends one token of a live lease (leaseLive): the allowing decision of its call. */
export function spendLease(lease: Lease): RateDecision {
  lease.spare -= 1;
  return decide(true, lease.level + lease.spare, lease.policy);
}

/**
 * The lease after a take granted `granted` tokens (the first for the call that asked) and left
 * the shared bucket at `level`: what is left of a live one under the same policy, plus the rest
 * of the grant, for another LEASE_MS. undefined when nothing is left to spend.
 */
export function grantLease(
  lease: Lease | undefined,
  granted: number,
  level: number,
  policy: BucketPolicy,
  now: number,
): Lease | undefined {
  const kept = lease !== undefined && lease.expiresAt > now && lease.policy === policy ? lease.spare : 0;
  const spare = kept + Math.max(0, granted - 1);
  if (spare < 1) return undefined;
  return { spare, level, expiresAt: now + LEASE_MS, policy };
}
