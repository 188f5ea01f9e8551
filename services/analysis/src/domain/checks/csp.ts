import type { Finding } from '@meridian/contracts';
import type { Response } from '../observations.js';
import { fail, pass, quote } from './finding.js';
import { headerValues, metaTags } from './page.js';

export type Directives = Map<string, string[]>;

export interface Policy {
  text: string;
  source: 'header' | 'meta';
  directives: Directives;
  /** Directives the policy names more than once: browsers keep the first and ignore the rest. */
  repeated: string[];
}

/** Directives a browser ignores in `<meta http-equiv>` (CSP 3, section 3.3). */
const IGNORED_IN_META = ['frame-ancestors', 'report-uri', 'sandbox'];

/** Sources that let any host serve the page's scripts or plugins. */
const BROAD = new Set(['*', 'http:', 'https:', 'ftp:', 'http://*', 'http://*.*', 'https://*', 'https://*.*']);
const NONCE_OR_HASH = /^'(nonce-|sha256-|sha384-|sha512-)/;

/**
 * One policy's directives, lower-cased; the first of a repeated directive wins, as in browsers
 * (CSP 3, 2.2.1 "parse a serialized CSP": a duplicate is ignored), and the repeated names are kept.
 */
export function parseDirectives(policy: string): { directives: Directives; repeated: string[] } {
  const directives: Directives = new Map();
  const repeated: string[] = [];
  for (const part of policy.split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (!name) continue;
    const key = name.toLowerCase();
    if (directives.has(key)) repeated.push(key);
    else
      directives.set(
        key,
        values.map((v) => v.toLowerCase()),
      );
  }
  return { directives, repeated };
}

/**
 * Every policy the browser enforces on the page: each Content-Security-Policy header (a comma
 * separates policies in one header) and each `<meta http-equiv>` policy without the directives
 * browsers ignore there. Report-Only policies enforce nothing and are left out.
 */
export function enforcedPolicies(page: Response): Policy[] {
  const fromHeaders = headerValues(page.headers, 'content-security-policy')
    .flatMap((value) => value.split(','))
    .map((text) => text.trim())
    .filter(Boolean)
    .map((text): Policy => ({ text, source: 'header', ...parseDirectives(text) }));
  const fromMeta = metaTags(page.body)
    .filter((m) => m.httpEquiv === 'content-security-policy' && m.content?.trim())
    .map((m): Policy => {
      const { directives, repeated } = parseDirectives(m.content!);
      for (const name of IGNORED_IN_META) directives.delete(name);
      return { text: m.content!.trim(), source: 'meta', directives, repeated };
    })
    .filter((p) => p.directives.size > 0);
  return [...fromHeaders, ...fromMeta];
}

type Verdict = 'invalid' | 'unsafe-inline' | 'unsafe-eval' | 'strict' | 'present';
const RANK: Record<Verdict, number> = {
  invalid: -1,
  'unsafe-inline': 0,
  'unsafe-eval': 1,
  present: 2,
  strict: 3,
};

/**
 * How well one policy restricts scripts. A nonce or hash makes browsers ignore 'unsafe-inline';
 * with 'strict-dynamic' they also ignore host and scheme sources and 'self'. 'strict-dynamic'
 * without a nonce or hash trusts no script at all in current browsers and leaves older ones
 * on the host list: the HTTP Observatory calls such a policy invalid, and so do we.
 */
function verdictOf(directives: Directives): Verdict {
  let scripts = directives.get('script-src') ?? directives.get('default-src') ?? ['*'];
  const objects = directives.get('object-src') ?? directives.get('default-src') ?? ['*'];
  const nonceOrHash = scripts.some((s) => NONCE_OR_HASH.test(s));
  if (scripts.includes("'strict-dynamic'") && !nonceOrHash) return 'invalid';
  if (nonceOrHash) {
    scripts = scripts.filter((s) => s !== "'unsafe-inline'");
    if (scripts.includes("'strict-dynamic'"))
      scripts = scripts.filter((s) => s.startsWith("'") && s !== "'self'");
  }
  if (
    scripts.some((s) => s === "'unsafe-inline'" || s === 'data:' || BROAD.has(s)) ||
    objects.some((s) => BROAD.has(s))
  )
    return 'unsafe-inline';
  if (scripts.includes("'unsafe-eval'")) return 'unsafe-eval';
  return objects.includes("'none'") ? 'strict' : 'present';
}

const evidenceOf = (policy: Policy) =>
  policy.source === 'meta' ? `<meta http-equiv> ${quote(policy.text)}` : quote(policy.text);

function verdictFinding(verdict: Verdict, evidence: string): Finding {
  switch (verdict) {
    case 'invalid':
      return fail(
        'headers.csp.invalid',
        'headers',
        "Content-Security-Policy uses 'strict-dynamic' without a nonce or hash",
        'medium',
        evidence,
        "Give 'strict-dynamic' a nonce or hash to start from (`script-src 'nonce-…' 'strict-dynamic'`), or remove it.",
        -25,
      );
    case 'unsafe-inline':
      return fail(
        'headers.csp.unsafe',
        'headers',
        'Content-Security-Policy allows inline or unrestricted scripts',
        'medium',
        evidence,
        "Remove 'unsafe-inline', data: and wildcard or scheme-only sources from script-src and object-src, and set both (or default-src); use nonces or hashes for inline scripts.",
        -20,
      );
    case 'unsafe-eval':
      return fail(
        'headers.csp.unsafe-eval',
        'headers',
        "Content-Security-Policy allows 'unsafe-eval'",
        'medium',
        evidence,
        "Stop using eval() and remove 'unsafe-eval' from script-src.",
        -10,
      );
    case 'strict':
      return pass(
        'headers.csp.strict',
        'headers',
        'Content-Security-Policy restricts scripts and objects',
        evidence,
        5,
      );
    case 'present':
      return pass('headers.csp.present', 'headers', 'Content-Security-Policy restricts scripts', evidence);
  }
}

/** Fetch directives whose sources a page loads; images and media are passive content. */
const FETCH_DIRECTIVES = [
  'default-src',
  'script-src',
  'script-src-elem',
  'script-src-attr',
  'style-src',
  'style-src-elem',
  'style-src-attr',
  'img-src',
  'media-src',
  'font-src',
  'connect-src',
  'frame-src',
  'child-src',
  'worker-src',
  'manifest-src',
  'object-src',
];
const PASSIVE = new Set(['img-src', 'media-src']);
const INSECURE_SOURCE = /^(http|ws):(\/\/|$)/;

/**
 * Plain-http sources in the policy of an https page (HTTP Observatory
 * "csp-implemented-with-insecure-scheme", -20; -10 when only images or media may come over http).
 */
function insecureSchemeFinding(policy: Policy): Finding | null {
  const insecure = FETCH_DIRECTIVES.filter((d) =>
    policy.directives.get(d)?.some((s) => INSECURE_SOURCE.test(s)),
  );
  if (insecure.length === 0) return null;
  const passiveOnly = insecure.every((d) => PASSIVE.has(d));
  return fail(
    passiveOnly ? 'headers.csp.insecure-scheme-passive' : 'headers.csp.insecure-scheme',
    'headers',
    passiveOnly
      ? 'Content-Security-Policy of an HTTPS page lets images or media load over plain HTTP'
      : 'Content-Security-Policy of an HTTPS page lets resources load over plain HTTP',
    passiveOnly ? 'low' : 'medium',
    `${insecure.join(', ')} in ${evidenceOf(policy)}`,
    'Replace http: and ws: sources with https: and wss: ones.',
    passiveOnly ? -10 : -20,
  );
}

/** A directive named twice: browsers keep the first; the rest is dead text that misleads a reader. */
function repeatedFinding(policy: Policy): Finding[] {
  if (policy.repeated.length === 0) return [];
  return [
    fail(
      'headers.csp.repeated-directive',
      'headers',
      'Content-Security-Policy names a directive twice; browsers keep only the first',
      'low',
      `${[...new Set(policy.repeated)].join(', ')} repeated in ${evidenceOf(policy)}`,
      'Merge the repeated directive into one, with every source it needs.',
    ),
  ];
}

/**
 * Content-Security-Policy (HTTP Observatory "content-security-policy"). Every enforced policy
 * applies, so the page is as safe as its safest policy; as in the Observatory, the policy's worst
 * outcome is its one scored finding.
 */
export function cspChecks(page: Response): Finding[] {
  const policies = enforcedPolicies(page);
  if (policies.length === 0) {
    const reportOnly = headerValues(page.headers, 'content-security-policy-report-only').join(', ');
    return [
      fail(
        'headers.csp.missing',
        'headers',
        'No Content-Security-Policy',
        'medium',
        reportOnly
          ? `only Content-Security-Policy-Report-Only, which enforces nothing: ${quote(reportOnly)}`
          : 'header absent',
        "Send a Content-Security-Policy, e.g. `default-src 'self'; object-src 'none'; frame-ancestors 'self'`.",
        -25,
      ),
    ];
  }
  const [best, verdict] = policies
    .map((p) => [p, verdictOf(p.directives)] as const)
    .reduce((a, b) => (RANK[b[1]] > RANK[a[1]] ? b : a));
  const scored = verdictFinding(verdict, evidenceOf(best));
  const insecure = new URL(page.url).protocol === 'https:' ? insecureSchemeFinding(best) : null;
  const worst = insecure && insecure.score_modifier < Math.min(0, scored.score_modifier) ? insecure : scored;
  return [worst, ...repeatedFinding(best)];
}
