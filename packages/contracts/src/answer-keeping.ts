import { z } from 'zod';

/**
 * Data service → gateway: an answer (status 200, this body) that a holder may keep and serve
 * again, and how it ages. Its value is `AnswerKeeping` as JSON. Never leaves the edge.
 */
export const ANSWER_KEEPING_HEADER = 'x-answer-keeping';

/** The confidence without its age: round3(base × exp(−staleness / max_age_ms)), or one that does not age. */
const ageingConfidenceSchema = z.union([
  z.number(),
  z.object({ base: z.number(), max_age_ms: z.number() }).strict(),
]);

export const answerKeepingSchema = z
  .object({
    /** The first instant (ms since the epoch) the answer may differ with no other change: not served from then on. */
    servable_until: z.number(),
    /** The product whose data the answer reads (its generation's scope), e.g. `crypto/spot`. */
    product: z.string().min(1),
    /** The product's data generation the answer was computed under; another one drops it. */
    generation: z.string().min(1),
    /** The newest data point's time (ms): meta.staleness_ms = max(0, round(now − as_of)). */
    as_of: z.number(),
    confidence: ageingConfidenceSchema,
    /**
     * Where the aged fields sit in the body sent with it, in bytes: the value of meta.staleness_ms
     * [at[0], at[1]) and of meta.confidence [at[2], at[3]).
     */
    at: z.tuple([z.number().int(), z.number().int(), z.number().int(), z.number().int()]),
  })
  .strict();
export type AnswerKeeping = z.infer<typeof answerKeepingSchema>;
export type AgeingConfidence = z.infer<typeof ageingConfidenceSchema>;

/**
 * The notice a data replica sends when it stored rows that change answers (NOTICES.dataAnswersChanged):
 * the other data replicas bump those kinds' generations, the gateways stop serving what they kept
 * of those products. Sent by whoever stored them; a replica hearing its own ignores it.
 */
export const dataAnswersChangedSchema = z
  .object({
    replica: z.string().min(1),
    /** The kinds of ingested rows that changed (candles, trades, observations...). */
    kinds: z.array(z.string().min(1)).min(1),
    /** The products (`category/product`) whose answers read those kinds. */
    products: z.array(z.string().min(1)),
  })
  .strict();
export type DataAnswersChanged = z.infer<typeof dataAnswersChangedSchema>;

/** A kept body cut around its aged fields: head, staleness, middle, confidence, tail. */
export interface KeptBody {
  head: string;
  middle: string;
  tail: string;
  /** The UTF-8 lengths of head and middle: where the aged fields sit, whatever the numbers' lengths. */
  headBytes: number;
  middleBytes: number;
}

/** A body cut around its aged fields; `latin1`: its strings hold one character a byte. */
export function keptBody(head: string, middle: string, tail: string, latin1 = false): KeptBody {
  const bytes = (s: string) => (latin1 ? s.length : utf8Length(s));
  return { head, middle, tail, headBytes: bytes(head), middleBytes: bytes(middle) };
}

/** A string's length in UTF-8 (the contracts run in browsers too: no Buffer). */
function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    // A surrogate pair is one 4-byte character: 2 + 2 over its two halves.
    else if (c >= 0xd800 && c <= 0xdfff) n += 2;
    else n += 3;
  }
  return n;
}

/** The recipe from its field, or undefined when it does not parse (the answer is then not kept). */
export function parseAnswerKeeping(field: string): AnswerKeeping | undefined {
  try {
    return answerKeepingSchema.safeParse(JSON.parse(field)).data;
  } catch {
    return undefined;
  }
}

/**
 * The age-dependent fields at `now`: staleness unrounded (the confidence ages on it) and the
 * confidence, the data service's formula (confidence.ts) with its age-free factors folded into base.
 */
export function agedAt(keeping: Pick<AnswerKeeping, 'as_of' | 'confidence'>, now: number) {
  const staleness = Math.max(0, now - keeping.as_of);
  const c = keeping.confidence;
  const confidence =
    typeof c === 'number'
      ? c
      : Math.round(c.base * Math.exp(-staleness / Math.max(1, c.max_age_ms)) * 1000) / 1000;
  return { staleness_ms: staleness, confidence };
}

/** A number as JSON.stringify writes it (a non-finite one is null). */
const json = (n: number) => (Number.isFinite(n) ? String(n) : 'null');

/**
 * The answer at `now`: the kept body with meta.staleness_ms and meta.confidence as a recomputation
 * would write them, and where they sit (the recipe's `at` for a holder further on). The one
 * function both the data service's cache and the gateway's serve with, so their bytes are the same.
 */
export function agedBody(
  body: KeptBody,
  keeping: Pick<AnswerKeeping, 'as_of' | 'confidence'>,
  now: number,
): { body: string; at: AnswerKeeping['at'] } {
  const { staleness, confidence, at } = agedPieces(body, agedAt(keeping, now));
  return { body: body.head + staleness + body.middle + confidence + body.tail, at };
}

/**
 * agedBody's two aged fields (agedAt's at the instant) as they are written, and where they sit: for
 * a holder that keeps the body's other pieces as bytes and writes them around these.
 */
export function agedPieces(
  body: Pick<KeptBody, 'headBytes' | 'middleBytes'>,
  aged: ReturnType<typeof agedAt>,
): { staleness: string; confidence: string; at: AnswerKeeping['at'] } {
  const staleness = json(Math.max(0, Math.round(aged.staleness_ms)));
  const confidence = json(aged.confidence);
  const s1 = body.headBytes + staleness.length;
  const c0 = s1 + body.middleBytes;
  return { staleness, confidence, at: [body.headBytes, s1, c0, c0 + confidence.length] };
}

/**
 * A received body (read as latin1: one character a byte) cut at its recipe's `at`; undefined when
 * the places are not inside it in order.
 */
export function keptBodyOf(latin1: string, at: AnswerKeeping['at']): KeptBody | undefined {
  const [s0, s1, c0, c1] = at;
  if (!(0 <= s0 && s0 <= s1 && s1 <= c0 && c0 <= c1 && c1 <= latin1.length)) return undefined;
  return keptBody(latin1.slice(0, s0), latin1.slice(s1, c0), latin1.slice(c1), true);
}
