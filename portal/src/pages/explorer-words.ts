import { ApiError } from './api.js';

/** The envelope of a data answer (data-api-interface 2.1), as far as the explorer reads it. */
export interface Envelope {
  data: unknown;
  meta?: Meta;
  provenance?: Provenance;
}

interface Meta {
  as_of?: string;
  venues?: string[];
  staleness_ms?: number;
  confidence?: number;
  has_more?: boolean;
  next_cursor?: string | null;
  truncated?: boolean;
  returned?: number;
  hint?: string;
  replay?: Replay;
}

/** What the data service says of an answer that rests on replayed recordings. */
interface Replay {
  live: boolean;
  recorded: string;
  kind: 'recording' | 'sample' | 'mixed';
  recorded_at: string;
  played_at: string;
}

interface Provenance {
  sources?: Array<{ venue: string; ts: string; symbol?: string; recorded_ts?: string }>;
  method?: string;
  excluded?: Array<{ venue: string; symbol?: string; reason: string }>;
}

/** An identifier of the catalogue (`absurd_cosmos`, `reference_price`) as a name. */
export function nameOf(id: string): string {
  const words = id
    .replace(/_/g, ' ')
    .replace(/\b(etf|fx|ohlcv|vwap|oi|kp|tx|usd)\b/gi, (w) => w.toUpperCase());
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const day = (iso: string) => new Date(iso).toLocaleDateString(undefined, { dateStyle: 'long' });
const moment = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** An age in milliseconds as a person says it. */
function age(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 1) return 'less than a second';
  if (s < 120) return `${s} second${s === 1 ? '' : 's'}`;
  const m = Math.round(s / 60);
  if (m < 120) return `${m} minutes`;
  const hours = Math.round(m / 60);
  return hours < 48 ? `${hours} hours` : `${Math.round(hours / 24)} days`;
}

/** The replay notice: what was recorded, and when, played as if it were now. */
export function replayNotice(replay: Replay): string {
  const what =
    replay.kind === 'sample'
      ? 'a hand-written sample in the upstream’s format'
      : replay.kind === 'mixed'
        ? 'recordings and hand-written samples'
        : 'a recording';
  return (
    `Not live: this answer replays ${what} (${replay.recorded}) made on ${day(replay.recorded_at)}, ` +
    `played as of ${moment(replay.played_at)}. Its times are shifted to the present; the original time of each source is listed below.`
  );
}

/** The answer's `meta` in words: when, how fresh, how sure, from which venues. */
export function metaWords(meta: Meta): string[] {
  const lines: string[] = [];
  if (meta.as_of) lines.push(`As of ${moment(meta.as_of)}.`);
  if (typeof meta.staleness_ms === 'number') lines.push(`The newest data is ${age(meta.staleness_ms)} old.`);
  if (typeof meta.confidence === 'number')
    lines.push(
      `Confidence ${Math.round(meta.confidence * 100)} % (from freshness and agreement of the venues).`,
    );
  if (meta.venues?.length) lines.push(`Venues: ${meta.venues.join(', ')}.`);
  if (meta.truncated) lines.push(meta.hint ?? 'Whole rows were left out to fit the size asked for.');
  return lines;
}

/** A provenance source in words. */
export function sourceWords(s: NonNullable<Provenance['sources']>[number]): string {
  return (
    `${s.venue}${s.symbol ? ` (${s.symbol})` : ''} at ${moment(s.ts)}` +
    (s.recorded_ts ? `, recorded at ${moment(s.recorded_ts)}` : '')
  );
}

/** What the account's plan is, for a refusal that names the plan needed. */
export interface RefusalContext {
  metricName: string;
  minTier: string;
  plan: string | null;
  signedIn: boolean;
}

/** A refusal of the data API in plain language, with what to do about it. */
export function refusalWords(err: unknown, ctx: RefusalContext): string {
  if (!(err instanceof ApiError)) return err instanceof Error ? err.message : String(err);
  const p = err.problem;
  switch (p.status) {
    case 401:
    case 402:
      return ctx.signedIn
        ? 'Your session has ended: sign in again to read data.'
        : `Sign in to read ${ctx.metricName} (a free account needs no card), or pay per call with x402 from a program.`;
    case 403:
      return `${ctx.metricName} needs the ${ctx.minTier} plan${ctx.plan ? `; your account is on ${ctx.plan}` : ''}. Change your plan on the Account page; asking again will not help.`;
    case 404:
      return `${ctx.metricName} is not collected yet.`;
    case 429: {
      const wait = p.retry_after ?? 60;
      const at = new Date(Date.now() + wait * 1000).toLocaleTimeString();
      return `Too many requests for your plan’s limit per minute. Try again in ${wait} second${wait === 1 ? '' : 's'} (at ${at}).`;
    }
    case 503:
      return 'The data is not ready yet (it loads after a start). Try again in a few seconds.';
    default:
      return p.detail ?? p.title;
  }
}
