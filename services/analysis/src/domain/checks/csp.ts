import type { Finding } from '@meridian/contracts';
import type { Response } from '../observations.js';
import { fail, pass, quote } from './finding.js';
import { headerValues, metaTags } from './page.js';

export type Directives = Map<string, string[]>;

export interface Policy {
  text: string;
  source: 'header' | 'meta';
  directives: Directives;
}

/** Directives a browser ignores in `<meta http-equiv>` (CSP 3, section 3.3). */
const IGNORED_IN_META = ['frame-ancestors', 'report-uri', 'sandbox'];

/** Sources that let any host serve the page's scripts or plugins. */
const BROAD = new Set(['*', 'http:', 'https:', 'ftp:', 'http://*', 'http://*.*', 'https://*', 'https://*.*']);
const NONCE_OR_HASH = /^'(nonce-|sha256-|sha384-|sha512-)/;

/** One policy's directives, lower-cased; the first of a repeated directive wins, as in browsers. */
export function parseDirectives(policy: string): Directives {
  const map: Directives = new Map();
  for (const part of policy.split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name && !map.has(name.toLowerCase()))
      map.set(
        name.toLowerCase(),
        values.map((v) => v.toLowerCase()),
      );
  }
  return map;
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
    .map((text): Policy => ({ text, source: 'header', directives: parseDirectives(text) }));
  const fromMeta = metaTags(page.body)
    .filter((m) => m.httpEquiv === 'content-security-policy' && m.content?.trim())
    .map((m): Policy => {
      const directives = parseDirectives(m.content!);
      for (const name of IGNORED_IN_META) directives.delete(name);
      return { text: m.content!.trim(), source: 'meta', directives };
    })
    .filter((p) => p.directives.size > 0);
  return [...fromHeaders, ...fromMeta];
}

type Verdict = 'unsafe-inline' | 'unsafe-eval' | 'strict' | 'present';
const RANK: Record<Verdict, number> = { 'unsafe-inline': 0, 'unsafe-eval': 1, present: 2, strict: 3 };

/**
 * How well one policy restricts scripts. A nonce or hash makes browsers ignore 'unsafe-inline';
 * with 'strict-dynamic' they also ignore host and scheme sources and 'self'.
 */
function verdictOf(directives: Directives): Verdict {
  let scripts = directives.get('script-src') ?? directives.get('default-src') ?? ['*'];
  const objects = directives.get('object-src') ?? directives.get('default-src') ?? ['*'];
  if (scripts.some((s) => NONCE_OR_HASH.test(s))) {
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

/**
 * Content-Security-Policy (HTTP Observatory "content-security-policy"). Every enforced policy
 * applies, so the page is as safe as its safest policy.
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
  const evidence = evidenceOf(best);
  switch (verdict) {
    case 'unsafe-inline':
      return [
        fail(
          'headers.csp.unsafe',
          'headers',
          'Content-Security-Policy allows inline or unrestricted scripts',
          'medium',
          evidence,
          "Remove 'unsafe-inline', data: and wildcard or scheme-only sources from script-src and object-src, and set both (or default-src); use nonces or hashes for inline scripts.",
          -20,
        ),
      ];
    case 'unsafe-eval':
      return [
        fail(
          'headers.csp.unsafe-eval',
          'headers',
          "Content-Security-Policy allows 'unsafe-eval'",
          'medium',
          evidence,
          "Stop using eval() and remove 'unsafe-eval' from script-src.",
          -10,
        ),
      ];
    case 'strict':
      return [
        pass(
          'headers.csp.strict',
          'headers',
          'Content-Security-Policy restricts scripts and objects',
          evidence,
          5,
        ),
      ];
    case 'present':
      return [pass('headers.csp.present', 'headers', 'Content-Security-Policy restricts scripts', evidence)];
  }
}
