import type { SpfEvaluation } from '../../domain/observations.js';

/** The RFC 7208 4.6.4 limits. */
export const SPF_LOOKUP_LIMIT = 10;
export const SPF_VOID_LIMIT = 2;

const LOOKUP_MECHANISMS = new Set(['include', 'a', 'mx', 'ptr', 'exists']);

export const isSpf = (txt: string): boolean => /^v=spf1(\s|$)/i.test(txt.trim());

/** One term of an SPF record: qualifier, mechanism or modifier name, argument. */
export function parseSpfTerms(
  record: string,
): { qualifier: string; name: string; arg: string | null; modifier: boolean }[] {
  return record
    .trim()
    .split(/\s+/)
    .slice(1)
    .filter(Boolean)
    .map((term) => {
      const modifier = /^[a-z][a-z0-9_.-]*=/i.test(term);
      if (modifier) {
        const at = term.indexOf('=');
        return { qualifier: '', name: term.slice(0, at).toLowerCase(), arg: term.slice(at + 1), modifier };
      }
      const qualifier = /^[+\-~?]/.test(term) ? term[0]! : '+';
      const body = qualifier === '+' && term[0] !== '+' ? term : term.slice(1);
      const sep = body.search(/[:/]/);
      const name = (sep === -1 ? body : body.slice(0, sep)).toLowerCase();
      const arg = sep === -1 ? null : body.slice(sep + (body[sep] === ':' ? 1 : 0));
      return { qualifier, name, arg, modifier };
    });
}

/**
 * Evaluates a domain's SPF policy the way a receiver counts it: every include, a, mx, ptr,
 * exists and redirect costs one DNS lookup over the whole tree; past ten the policy is a
 * permerror. `txt` answers the TXT strings of a name ([] when none).
 */
export async function evaluateSpf(
  domain: string,
  txt: (name: string) => Promise<string[]>,
): Promise<SpfEvaluation> {
  const result: SpfEvaluation = {
    record: null,
    records: 0,
    lookups: 0,
    void_lookups: 0,
    all: null,
    errors: [],
  };
  const seen = new Set<string>();

  /** Walks one record; answers the qualifier+all that closes it (its own or its redirect's). */
  async function visit(name: string, top: boolean): Promise<string | null> {
    if (seen.has(name.toLowerCase())) {
      result.errors.push(`${name} is included twice (a loop)`);
      return null;
    }
    seen.add(name.toLowerCase());
    const records = (await txt(name)).filter(isSpf);
    if (top) {
      result.records = records.length;
      result.record = records[0] ?? null;
    }
    if (records.length === 0) {
      if (!top) {
        result.void_lookups++;
        result.errors.push(`${name} publishes no SPF record`);
      }
      return null;
    }
    if (records.length > 1) result.errors.push(`${name} publishes ${records.length} SPF records`);
    let redirect: string | null = null;
    let all: string | null = null;
    for (const term of parseSpfTerms(records[0]!)) {
      if (result.lookups > SPF_LOOKUP_LIMIT) return all;
      if (term.modifier) {
        if (term.name === 'redirect' && term.arg) redirect = term.arg;
        continue;
      }
      if (term.name === 'all') {
        all = `${term.qualifier}all`;
        continue;
      }
      if (!LOOKUP_MECHANISMS.has(term.name)) continue;
      result.lookups++;
      if (term.name === 'include' && term.arg) await visit(term.arg, false);
    }
    // RFC 7208 6.1: redirect applies only when the record has no `all`.
    if (redirect && all === null && result.lookups <= SPF_LOOKUP_LIMIT) {
      result.lookups++;
      return visit(redirect, false);
    }
    return all;
  }

  result.all = await visit(domain, true);
  if (result.lookups > SPF_LOOKUP_LIMIT)
    result.errors.push(
      `${result.lookups} DNS lookups, more than the limit of ${SPF_LOOKUP_LIMIT} (permerror)`,
    );
  if (result.void_lookups > SPF_VOID_LIMIT)
    result.errors.push(`${result.void_lookups} void lookups, more than ${SPF_VOID_LIMIT}`);
  return result;
}
