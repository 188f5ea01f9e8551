import type { AgedFields } from './answer-ageing.js';

/** An envelope of data-api-interface 2.1 as the route builds it: `meta` holds the age-dependent fields. */
export interface Envelope {
  meta: Record<string, unknown>;
}

/**
 * An envelope serialised once: the bytes before and after its `meta`, and the meta to patch. A hit
 * writes the kept bytes around the meta serialised again (a few hundred bytes), not the whole page.
 */
export interface KeptEnvelope {
  head: Uint8Array;
  meta: Record<string, unknown>;
  tail: Uint8Array;
}

/** Stands for the meta while the rest is serialised: control characters come out escaped, unlike any data. */
const META_MARK = '\u0000meta\u0000';
const MARK_JSON = JSON.stringify(META_MARK);

/**
 * The envelope's bytes split around its meta, or undefined if the mark's JSON appears more than once
 * (a string of the data holding it): such an answer is kept as an object and serialised per request.
 */
export function keepEnvelope(envelope: Envelope): KeptEnvelope | undefined {
  const text = JSON.stringify({ ...envelope, meta: META_MARK });
  const at = text.indexOf(MARK_JSON);
  if (at !== text.lastIndexOf(MARK_JSON)) return undefined;
  return {
    head: Buffer.from(text.slice(0, at)),
    meta: envelope.meta,
    tail: Buffer.from(text.slice(at + MARK_JSON.length)),
  };
}

/** The meta at a request's instant: the aged fields replaced in their places (the JSON of a fresh one). */
export function agedMeta(meta: Record<string, unknown>, aged: AgedFields): Record<string, unknown> {
  return { ...meta, staleness_ms: Math.max(0, Math.round(aged.staleness_ms)), confidence: aged.confidence };
}

/** The kept envelope's bytes at a request's instant, in three chunks: only the middle one is new. */
export function keptEnvelopeBytes(kept: KeptEnvelope, aged: AgedFields): Uint8Array[] {
  return [kept.head, Buffer.from(JSON.stringify(agedMeta(kept.meta, aged))), kept.tail];
}
