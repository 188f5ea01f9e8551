import { randomUUID } from 'node:crypto';
import {
  agedAt,
  agedPieces,
  ANSWER_KEEPING_HEADER,
  type AnswerKeeping,
  type IngestBatch,
  type Result,
} from '@meridian/contracts';
import { JsonText } from '@meridian/http-kit';
import { ageingConfidence, servableUntil } from '../domain/answer-ageing.js';
import { INGEST_KINDS, kindsRead } from '../domain/answer-invalidation.js';
import type { MetricAnswer } from '../domain/metric-resolver.js';
import type { Ingestor } from './ingestor.js';

/** The most answers kept; past it the oldest kept goes first. */
const MAX_ENTRIES = 2_000;
/**
 * The most later pages (past a cursor) kept, apart from the first pages: a crawl walking a series
 * back page by page never evicts the first pages most callers ask, and a page's ~200 KB stay bounded.
 */
const MAX_LATER_PAGES = 64;
/** The most shapes (fields and format) of one answer kept; others are built per request. */
const MAX_SHAPES = 8;

/** One query of the data endpoint, as the cache tells queries apart. */
export interface CachedQuery {
  /** (metric, entity, source, parameters) written out: equal keys are the same question. */
  key: string;
  category: string;
  product: string;
  /** A page past a cursor: kept apart, fewer of them. */
  later?: boolean;
}

interface Entry {
  answer: MetricAnswer;
  computedAt: number;
  until: number;
  /** The ingest generations of the kinds the product reads, when it was computed. */
  stamp: number;
  /** How a holder further on (the gateway) keeps and ages it, but where its fields sit. */
  keeping: Omit<AnswerKeeping, 'at'>;
  /** `keeping` as JSON without its closing brace, once served. */
  recipe?: string;
  /** The finished envelopes of this answer by shape (fields and format), serialised, cut around their aged fields. */
  envelopes: Map<string, KeptEnvelope>;
}

/**
 * A kept envelope: the pieces around its aged fields as UTF-8 bytes, encoded once: a hit writes
 * them as they are, an 80 KB page neither joined nor encoded again.
 */
type KeptEnvelope = readonly [head: Buffer, middle: Buffer, tail: Buffer];

interface Envelope {
  meta: Record<string, unknown>;
}

export interface AnswerCache {
  /**
   * The resolver's answer to `query` at `now`: from memory while the data the product reads has not
   * changed since it was computed (and only its age-dependent fields differ), else `compute`d.
   */
  answer(
    query: CachedQuery,
    now: number,
    compute: () => Promise<Result<MetricAnswer>>,
  ): Promise<{ result: Result<MetricAnswer>; envelope: (shape: string, build: () => unknown) => unknown }>;
  /** Another replica stored rows of these kinds: what reads them is computed again (flows/answer-notices.ts). */
  changed(kinds: readonly string[]): void;
}

/**
 * Every metric's answers, computed once per change of the data behind them. An ingest this process
 * makes that changes a kind of row bumps that kind's generation; an answer is served again only
 * while the generations of the kinds its product reads are those it was computed under (so an answer
 * computed while a batch committed is never kept past it), for at most `ttlMs` (the bound for what
 * another replica ingested) and never across a minute boundary or its resolver's validUntil.
 * `ttlMs` 0: every answer recomputed.
 */
export function createAnswerCache(ingestor: Ingestor, ttlMs: number): AnswerCache {
  const generation = new Map<string, number>(INGEST_KINDS.map((k) => [k, 0]));
  const entries = new KeptEntries();
  const inflight = new Map<string, Promise<Entry | undefined>>();
  const bump = (kind: string) =>
    void (generation.has(kind) && generation.set(kind, generation.get(kind)! + 1));
  ingestor.onChange((batch: IngestBatch) => bump(batch.kind));
  // Generations restart with the process: a holder tells this one's apart from another's.
  const run = randomUUID().slice(0, 8);
  const stampOf = (q: CachedQuery) =>
    kindsRead(q.category, q.product).reduce((sum, k) => sum + generation.get(k)!, 0);

  const servable = (e: Entry | undefined, q: CachedQuery, now: number): e is Entry =>
    e !== undefined && now >= e.computedAt && now < e.until && e.stamp === stampOf(q);

  const compute = async (q: CachedQuery, now: number, resolve: () => Promise<Result<MetricAnswer>>) => {
    const stamp = stampOf(q);
    const result = await resolve();
    const ageing = result.ok ? result.value.ageing : undefined;
    if (!result.ok || !ageing) return { result, entry: undefined, kept: false };
    const until = servableUntil(now, ageing, ttlMs);
    const entry: Entry = {
      answer: result.value,
      computedAt: now,
      until,
      stamp,
      keeping: {
        servable_until: until,
        product: `${q.category}/${q.product}`,
        generation: `${run}.${stamp}`,
        as_of: ageing.asOf,
        confidence: ageingConfidence(ageing),
      },
      envelopes: new Map(),
    };
    const kept = stamp === stampOf(q) && entry.until > now;
    if (kept) entries.keep(q, entry);
    return { result, entry, kept };
  };

  const fresh = (result: Result<MetricAnswer>) => ({
    result,
    envelope: (_: string, build: () => unknown) => build(),
  });

  return {
    changed: (kinds) => kinds.forEach(bump),
    async answer(q, now, resolve) {
      if (ttlMs <= 0) return fresh(await resolve());
      const kept = entries.get(q);
      if (servable(kept, q, now)) return served(kept, now);
      // Requests that miss together wait for one computation, and use it if it serves their instant.
      const pending = inflight.get(q.key);
      if (pending) {
        const entry = await pending;
        if (servable(entry, q, now)) return served(entry, now);
      }
      const started = compute(q, now, resolve);
      if (!pending) {
        // A failed computation fails its own request; a waiter then computes for itself.
        const entry = started.then(
          (c) => c.entry,
          () => undefined,
        );
        inflight.set(q.key, entry);
        void entry.then(() => inflight.get(q.key) === entry && inflight.delete(q.key));
      }
      const own = await started;
      // One computed while a batch committed is served to its own request, not declared keepable.
      return own.entry ? served(own.entry, now, own.kept) : fresh(own.result);
    },
  };
}

/** The kept answers: the first pages, and the later pages bounded apart; past a bound the oldest goes. */
class KeptEntries {
  private readonly first = new Map<string, Entry>();
  private readonly later = new Map<string, Entry>();

  get(q: CachedQuery): Entry | undefined {
    return (q.later ? this.later : this.first).get(q.key);
  }

  keep(q: CachedQuery, entry: Entry): void {
    const entries = q.later ? this.later : this.first;
    entries.delete(q.key);
    entries.set(q.key, entry);
    if (entries.size > (q.later ? MAX_LATER_PAGES : MAX_ENTRIES))
      entries.delete(entries.keys().next().value!);
  }
}

/** A kept answer at `now`: its aged fields patched, its envelopes serialised once per shape. */
function served(entry: Entry, now: number, keepable = true) {
  const aged = agedAt(entry.keeping, now);
  const answer: MetricAnswer = { ...entry.answer, ...aged };
  return {
    result: { ok: true as const, value: answer },
    envelope: (shape: string, build: () => unknown) => {
      let kept = entry.envelopes.get(shape);
      if (!kept) {
        kept = cut(build() as Envelope);
        if (entry.envelopes.size < MAX_SHAPES) entry.envelopes.set(shape, kept);
      }
      const [head, middle, tail] = kept;
      const cutAt = { headBytes: head.length, middleBytes: middle.length };
      const { staleness, confidence, at } = agedPieces(cutAt, aged);
      // The recipe but its places, written once: `{...,"at":[…]}` as JSON.stringify would.
      entry.recipe ??= JSON.stringify(entry.keeping).slice(0, -1);
      const recipe = keepable ? `${entry.recipe},"at":[${at.join(',')}]}` : undefined;
      const fields: [string, string][] = recipe === undefined ? [] : [[ANSWER_KEEPING_HEADER, recipe]];
      return new JsonText([head, staleness, middle, confidence, tail], fields);
    },
  };
}

/** Stand-ins of the aged fields, written where they sit and found again in the JSON. */
const STALENESS_MARK = `aged:staleness_ms:${randomUUID()}`;
const CONFIDENCE_MARK = `aged:confidence:${randomUUID()}`;

/** The envelope serialised once, cut around meta's aged fields (in their place of order). */
function cut(envelope: Envelope): KeptEnvelope {
  const marked = {
    ...envelope,
    meta: { ...envelope.meta, staleness_ms: STALENESS_MARK, confidence: CONFIDENCE_MARK },
  };
  const text = JSON.stringify(marked);
  const s = JSON.stringify(STALENESS_MARK);
  const c = JSON.stringify(CONFIDENCE_MARK);
  const s0 = text.indexOf(s);
  const c0 = text.indexOf(c, s0 + s.length);
  if (s0 < 0 || c0 < 0) throw new Error('a kept envelope lost its aged fields');
  return [
    Buffer.from(text.slice(0, s0)),
    Buffer.from(text.slice(s0 + s.length, c0)),
    Buffer.from(text.slice(c0 + c.length)),
  ];
}
