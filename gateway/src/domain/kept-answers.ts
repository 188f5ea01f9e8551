import {
  agedBody,
  ANSWER_KEEPING_HEADER,
  keptBodyOf,
  parseAnswerKeeping,
  type AnswerKeeping,
  type KeptBody,
} from '@meridian/contracts';

/** A data answer kept by this replica: its body cut around its aged fields, and how it ages. */
export interface KeptAnswer {
  body: KeptBody;
  keeping: AnswerKeeping;
  /** The data service's fields to send again: less its length, date and recipe, which vary or stay inside. */
  fields: string[];
  /** Served before this instant only: the data service's servable_until, or this replica's bound. */
  until: number;
  bytes: number;
}

export interface KeptAnswersLimits {
  /** How long a kept answer is served at most (the bound for an ingest this replica is not told of). */
  ttlMs: number;
  /** The most bytes of bodies kept; past it the oldest kept goes first. */
  maxBytes: number;
  /** The largest body kept. */
  maxBodyBytes: number;
}

/** Fields of a kept answer that are written per answer (length, date) or never leave the edge (the recipe). */
const NOT_KEPT = new Set(['content-length', 'date', ANSWER_KEEPING_HEADER, 'x-request-id', 'traceparent']);

/**
 * The question a data call asks, as the answer to it depends on it: its path and query string as
 * sent, and the caller's plan, which the data service checks again (a refusal is never kept, but
 * an answer kept for one plan is not served to another on the edge's word alone). Nothing else
 * about the caller changes a data answer (its key or session only admits it), nor do Accept and
 * the other request fields: the data service reads none.
 */
export function keptAnswerKey(plan: string, path: string, query: string): string {
  return `${plan} ${path}?${query}`;
}

/**
 * The data answers this replica keeps: only those the data service declared keepable
 * (ANSWER_KEEPING_HEADER), until its servable_until or `ttlMs` after they came, and while the
 * generation of their product is the newest this replica has seen in an answer. Bounded in bytes.
 */
export class KeptAnswers {
  private readonly entries = new Map<string, KeptAnswer>();
  /** The newest data generation of each product seen in an answer. */
  private readonly generations = new Map<string, string>();
  private bytes = 0;

  constructor(private readonly limits: KeptAnswersLimits) {}

  get size(): number {
    return this.entries.size;
  }

  /** The kept answer to `key` servable at `now`, else undefined (and a dead one is dropped). */
  get(key: string, now: number): KeptAnswer | undefined {
    const kept = this.entries.get(key);
    if (kept === undefined) return undefined;
    if (now < kept.until && this.generations.get(kept.keeping.product) === kept.keeping.generation)
      return kept;
    this.drop(key, kept);
    return undefined;
  }

  /**
   * The data service's answer to `key` as received (status, fields, whole body): kept when it says
   * it may be. Any answer that names a generation makes it its product's newest: answers of an
   * older one are no longer served.
   */
  keep(key: string, status: number, rawFields: string[], body: Buffer, now: number): KeptAnswer | undefined {
    const field = recipeField(rawFields);
    const keeping = field === undefined ? undefined : parseAnswerKeeping(field);
    if (keeping === undefined) return undefined;
    this.generations.set(keeping.product, keeping.generation);
    const until = Math.min(keeping.servable_until, now + this.limits.ttlMs);
    if (status !== 200 || until <= now || body.length > this.limits.maxBodyBytes) return undefined;
    const cut = keptBodyOf(body.toString('latin1'), keeping.at);
    if (cut === undefined) return undefined;
    const kept: KeptAnswer = { body: cut, keeping, fields: keptFields(rawFields), until, bytes: body.length };
    const old = this.entries.get(key);
    if (old !== undefined) this.drop(key, old);
    this.entries.set(key, kept);
    this.bytes += kept.bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.limits.maxBytes) break;
      this.drop(oldest, entry);
    }
    return kept;
  }

  /** The data of these products changed (a data replica's notice): what was kept of them is not served again. */
  forget(products: readonly string[]): void {
    for (const product of products) this.generations.delete(product);
  }

  private drop(key: string, kept: KeptAnswer): void {
    if (this.entries.get(key) !== kept) return;
    this.entries.delete(key);
    this.bytes -= kept.bytes;
  }
}

/** The body of a kept answer at `now`, as latin1 (one character a byte, the data service's bytes). */
export function agedAnswer(kept: KeptAnswer, now: number): string {
  return agedBody(kept.body, kept.keeping, now).body;
}

function recipeField(raw: string[]): string | undefined {
  for (let i = 0; i < raw.length; i += 2)
    if (raw[i]!.length === ANSWER_KEEPING_HEADER.length && raw[i]!.toLowerCase() === ANSWER_KEEPING_HEADER)
      return raw[i + 1];
  return undefined;
}

function keptFields(raw: string[]): string[] {
  const fields: string[] = [];
  for (let i = 0; i < raw.length; i += 2)
    if (!NOT_KEPT.has(raw[i]!.toLowerCase())) fields.push(raw[i]!, raw[i + 1]!);
  return fields;
}
