import { hash } from 'node:crypto';
import type { Bus } from '@meridian/bus';
import type { Plan, Problem } from '@meridian/contracts';
import { problem } from '@meridian/http-kit';
import { TtlLru } from '../domain/ttl-lru.js';
import type { FailureBudget } from './failure-budget.js';

/** What identity vouches for a key or a session. */
export interface Verified {
  account_id: string;
  plan: Plan;
}

export type Verification<T> = { ok: true; value: T } | { ok: false; problem: Problem };

export interface VerifiedCacheOptions<T extends Verified> {
  bus: Bus;
  /** rpc.identity.key.verify.v1 or rpc.identity.session.verify.v1. */
  subject: string;
  /** The request payload for one credential: {key} or {token}. */
  request: (credential: string) => unknown;
  /** The id revocation events name: key_id or session_id. */
  idOf: (value: T) => string;
  parse: (data: unknown) => T | undefined;
  ttlMs: number;
  maxEntries: number;
  /** 0 turns negative caching off. */
  negativeTtlMs: number;
  maxNegative: number;
  /** Misses allowed in flight at once to identity; beyond them a miss answers 503 at once. */
  maxInFlight: number;
  /** Failed verifications allowed per client address; a miss past it answers 429 without asking identity. */
  budget?: FailureBudget;
  /**
   * Whether a value from memory may no longer be vouched for (true, or undefined when it cannot be
   * told): it is then asked about again, as a miss.
   */
  stale?: (value: T) => Promise<boolean | undefined>;
  rpcTimeoutMs?: number;
  now?: () => number;
}

function tooManyAtOnce(): { ok: false; problem: Problem } {
  return {
    ok: false,
    problem: problem('service_unavailable', 'Too many verifications at once; retry.', { retryAfter: 1 }),
  };
}

/**
 * The cache key: a hash, so no raw key or token is held as a map key or reaches a log. One-shot
 * hash(): no Hash object per call on the hot path.
 */
export function credentialHash(credential: string): string {
  return hash('sha256', credential, 'base64url');
}

/**
 * Verification at the edge: answers from memory while identity's events keep it true, asks
 * identity over NATS on a miss, and remembers refusals briefly so a repeated bad credential
 * costs identity nothing. Concurrent misses of one credential share one request; a miss holds a
 * try of the client address's budget of failed verifications while identity is asked, so distinct
 * bad credentials do not reach identity faster than that budget.
 */
export class VerifiedCache<T extends Verified> {
  private readonly good: TtlLru<T>;
  private readonly bad: TtlLru<Problem> | undefined;
  private readonly hashById = new Map<string, string>();
  /** Ids revoked lately: a verification in flight when the event came must not cache them. */
  private readonly revoked: TtlLru<true>;
  private readonly inFlight = new Map<string, Promise<Verification<T>>>();
  private readonly now: () => number;
  private readonly rpcTimeoutMs: number;
  /** Bumped by clear(): an answer asked for before it is not cached. */
  private generation = 0;
  misses = 0;

  constructor(private readonly options: VerifiedCacheOptions<T>) {
    this.now = options.now ?? Date.now;
    this.rpcTimeoutMs = options.rpcTimeoutMs ?? 2000;
    this.good = new TtlLru(options.maxEntries, options.ttlMs);
    this.bad = options.negativeTtlMs > 0 ? new TtlLru(options.maxNegative, options.negativeTtlMs) : undefined;
    this.revoked = new TtlLru(10_000, Math.max(options.ttlMs, 60_000));
  }

  /**
   * Synchronous when the answer is in memory, so the hot path pays no promise for a hit.
   * `client` gives the caller's address, whose budget a miss is counted against (asked for on a
   * miss only, as working it out costs the hot path); without it there is no budget.
   */
  verify(credential: string, client?: () => string): Verification<T> | Promise<Verification<T>> {
    const hash = credentialHash(credential);
    const known = this.known(hash);
    const stale = this.options.stale;
    if (stale && known && !(known instanceof Promise) && known.ok) {
      return stale(known.value).then(
        (v) => (v === false ? known : this.again(credential, hash, client)),
        () => this.again(credential, hash, client),
      );
    }
    if (known) return known;
    return this.lookUp(credential, hash, client);
  }

  /** A value from memory that may no longer hold: forgotten, and asked about as a miss. */
  private again(credential: string, hash: string, client?: () => string) {
    this.good.delete(hash);
    return this.lookUp(credential, hash, client);
  }

  private lookUp(
    credential: string,
    hash: string,
    client?: () => string,
  ): Verification<T> | Promise<Verification<T>> {
    const pending = this.inFlight.get(hash);
    if (pending) return pending;
    if (this.inFlight.size >= this.options.maxInFlight) return tooManyAtOnce();
    const budget = this.options.budget;
    if (!budget || client === undefined) return this.share(credential, hash);
    return this.spend(budget, client(), credential, hash);
  }

  /** The answer in memory, or the request to identity another caller already made for it. */
  private known(hash: string): Verification<T> | Promise<Verification<T>> | undefined {
    const now = this.now();
    const value = this.good.get(hash, now);
    if (value) return { ok: true, value };
    const refused = this.bad?.get(hash, now);
    if (refused) return { ok: false, problem: refused };
    return this.inFlight.get(hash);
  }

  private async spend(
    budget: FailureBudget,
    client: string,
    credential: string,
    hash: string,
  ): Promise<Verification<T>> {
    const attempt = await budget.attempt(client, this.rpcTimeoutMs);
    if (!attempt.ok) return attempt;
    // While the budget was read another caller may have asked about this credential, or learnt it.
    const known = this.known(hash);
    if (known || this.inFlight.size >= this.options.maxInFlight) {
      attempt.end(false);
      return known ?? tooManyAtOnce();
    }
    let refused = false;
    try {
      const result = await this.share(credential, hash);
      // Only identity's refusal counts against the address, not its silence or failure.
      refused = !result.ok && result.problem.status === 401;
      return result;
    } finally {
      attempt.end(refused);
    }
  }

  /** One request to identity per credential, whoever else asks for it meanwhile. */
  private share(credential: string, hash: string): Promise<Verification<T>> {
    const pending = this.ask(credential, hash).finally(() => this.inFlight.delete(hash));
    this.inFlight.set(hash, pending);
    return pending;
  }

  private async ask(credential: string, hash: string): Promise<Verification<T>> {
    this.misses++;
    const generation = this.generation;
    const reply = await this.options.bus.request<unknown>(
      this.options.subject,
      this.options.request(credential),
      { timeoutMs: this.rpcTimeoutMs },
    );
    if (!reply.ok) {
      // Only identity's own refusal (401) is remembered; a transport failure is retried next time.
      if (reply.problem.status === 401) this.bad?.set(hash, reply.problem, this.now());
      return { ok: false, problem: reply.problem };
    }
    const value = this.options.parse(reply.data);
    if (!value)
      return { ok: false, problem: problem('bad_gateway', 'Identity answered an unreadable reply.') };
    const id = this.options.idOf(value);
    if (this.revoked.get(id)) {
      return { ok: false, problem: problem('unauthorized', 'The credential was revoked.') };
    }
    // Asked before a clear(): identity may have answered from before the gap; ask again next time.
    if (generation !== this.generation) return { ok: true, value };
    this.good.set(hash, value, this.now());
    this.hashById.set(id, hash);
    if (this.hashById.size > this.options.maxEntries * 2) this.compactIndex();
    return { ok: true, value };
  }

  /** What this replica holds vouched for under an id, if anything. */
  cachedById(id: string): T | undefined {
    const hash = this.hashById.get(id);
    return hash === undefined ? undefined : this.good.get(hash, this.now());
  }

  /** A key or session was revoked: it stops working on this replica now. */
  revoke(id: string): void {
    this.revoked.set(id, true, this.now());
    const hash = this.hashById.get(id);
    if (hash) this.good.delete(hash);
    this.hashById.delete(id);
  }

  /** What was vouched for under an id changed (a session stepped up): verified again on its next use. */
  forget(id: string): void {
    const hash = this.hashById.get(id);
    if (hash) this.good.delete(hash);
  }

  /**
   * Forgets every credential vouched for, when events may have been missed (the bus reconnected):
   * each is verified again on its next use. Refusals stay remembered; nothing revoked is in them.
   */
  clear(): void {
    this.generation++;
    this.good.clear();
    this.hashById.clear();
  }

  /** An account's plan changed: every cached credential of it carries the new plan. */
  planChanged(accountId: string, plan: Plan): void {
    for (const [, value] of this.good.values()) if (value.account_id === accountId) value.plan = plan;
  }

  get size(): number {
    return this.good.size;
  }

  private compactIndex(): void {
    for (const [id, hash] of this.hashById) if (!this.good.get(hash)) this.hashById.delete(id);
  }
}
