import type { IngestBatch, Result } from '@meridian/contracts';
import { SerializedJson } from '@meridian/http-kit';
import { agedFields, servableUntil, type AgedFields } from '../domain/answer-ageing.js';
import {
  agedMeta,
  keepEnvelope,
  keptEnvelopeBytes,
  type Envelope,
  type KeptEnvelope,
} from '../domain/kept-envelope.js';
import { INGEST_KINDS, kindsRead } from '../domain/answer-invalidation.js';
import type { MetricAnswer } from '../domain/metric-resolver.js';
import type { Ingestor } from './ingestor.js';

/** The most answers kept; past it the oldest kept goes first. */
const MAX_ENTRIES = 2_000;
/** The most shapes (fields and format) of one answer kept; others are built per request. */
const MAX_SHAPES = 8;

/** One query of the data endpoint, as the cache tells queries apart. */
export interface CachedQuery {
  /** (metric, entity, source, parameters) written out: equal keys are the same question. */
  key: string;
  category: string;
  product: string;
}

interface Entry {
  answer: MetricAnswer;
  computedAt: number;
  until: number;
  /** The ingest generations of the kinds the product reads, when it was computed. */
  stamp: number;
  /** The finished envelopes of this answer by shape (fields and format), serialised but for their meta. */
  envelopes: Map<string, KeptEnvelope | Envelope>;
}

export interface AnswerCache {
  /**
   * The resolver's answer to `query` at `now` (undefined: a question not kept, a later page): from memory while the data the product reads has not
   * changed since it was computed (and only its age-dependent fields differ), else `compute`d.
   */
  answer(
    query: CachedQuery | undefined,
    now: number,
    compute: () => Promise<Result<MetricAnswer>>,
  ): Promise<{ result: Result<MetricAnswer>; envelope: (shape: string, build: () => unknown) => unknown }>;
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
  const entries = new Map<string, Entry>();
  const inflight = new Map<string, Promise<Entry | undefined>>();
  ingestor.onChange((batch: IngestBatch) => {
    generation.set(batch.kind, generation.get(batch.kind)! + 1);
  });
  const stampOf = (q: CachedQuery) =>
    kindsRead(q.category, q.product).reduce((sum, k) => sum + generation.get(k)!, 0);

  const servable = (e: Entry | undefined, q: CachedQuery, now: number): e is Entry =>
    e !== undefined && now >= e.computedAt && now < e.until && e.stamp === stampOf(q);

  const compute = async (q: CachedQuery, now: number, run: () => Promise<Result<MetricAnswer>>) => {
    const stamp = stampOf(q);
    const result = await run();
    if (!result.ok || !result.value.ageing) return { result, entry: undefined };
    const entry: Entry = {
      answer: result.value,
      computedAt: now,
      until: servableUntil(now, result.value.ageing, ttlMs),
      stamp,
      envelopes: new Map(),
    };
    if (stamp === stampOf(q) && entry.until > now) keep(q.key, entry);
    return { result, entry };
  };

  const keep = (key: string, entry: Entry) => {
    entries.delete(key);
    entries.set(key, entry);
    if (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value!);
  };

  const fresh = (result: Result<MetricAnswer>) => ({
    result,
    envelope: (_: string, build: () => unknown) => build(),
  });

  return {
    async answer(q, now, run) {
      if (ttlMs <= 0 || !q) return fresh(await run());
      const kept = entries.get(q.key);
      if (servable(kept, q, now)) return served(kept, now);
      // Requests that miss together wait for one computation, and use it if it serves their instant.
      const pending = inflight.get(q.key);
      if (pending) {
        const entry = await pending;
        if (servable(entry, q, now)) return served(entry, now);
      }
      const started = compute(q, now, run);
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
      return own.entry ? served(own.entry, now) : fresh(own.result);
    },
  };
}

/** A kept answer at `now`: its aged fields patched, its envelopes built once per shape. */
function served(entry: Entry, now: number) {
  const aged = agedFields(entry.answer.ageing!, now);
  const answer: MetricAnswer = { ...entry.answer, ...aged };
  return {
    result: { ok: true as const, value: answer },
    envelope: (shape: string, build: () => unknown) => {
      let kept = entry.envelopes.get(shape);
      if (!kept) {
        const built = build() as Envelope;
        if (entry.envelopes.size >= MAX_SHAPES) return patched(built, aged);
        kept = keepEnvelope(built) ?? built;
        entry.envelopes.set(shape, kept);
      }
      return patched(kept, aged);
    },
  };
}

/** The envelope with its meta's aged fields replaced in place of order (the same JSON as a fresh one). */
function patched(envelope: KeptEnvelope | Envelope, aged: AgedFields): unknown {
  if ('head' in envelope) return new SerializedJson(keptEnvelopeBytes(envelope, aged));
  return { ...envelope, meta: agedMeta(envelope.meta, aged) };
}
