import type { Finding } from '@meridian/contracts';
import type { FileProbe, FilesObservation, TextResource } from '../observations.js';
import { exposedFileEvidence, type ExposedKind } from './file-evidence.js';
import { fail, pass, quote } from './finding.js';

/** Paths that must never be public, with what proves a hit is the real file. */
export const EXPOSED_FILES: {
  path: string;
  kind: ExposedKind;
  signature: (p: FileProbe) => boolean;
}[] = [
  { path: '/.git/config', kind: 'git', signature: (p) => /^\s*\[core\]/m.test(p.head) },
  { path: '/.git/HEAD', kind: 'git', signature: (p) => /^ref: refs\//.test(p.head.trim()) },
  {
    path: '/.env',
    kind: 'env',
    signature: (p) => /^[A-Z_][A-Z0-9_]*=/m.test(p.head) && !/<html/i.test(p.head),
  },
  { path: '/backup.zip', kind: 'backup', signature: (p) => p.head.startsWith('PK\u0003\u0004') },
  {
    path: '/backup.tar.gz',
    kind: 'backup',
    signature: (p) => p.head.charCodeAt(0) === 0x1f && p.head.charCodeAt(1) === 0x8b,
  },
  {
    path: '/db.sql',
    kind: 'dump',
    signature: (p) => /(CREATE TABLE|INSERT INTO|-- MySQL dump|PostgreSQL database dump)/i.test(p.head),
  },
  {
    path: '/dump.sql',
    kind: 'dump',
    signature: (p) => /(CREATE TABLE|INSERT INTO|-- MySQL dump|PostgreSQL database dump)/i.test(p.head),
  },
];

/** The probe looks like the site's answer to a path that cannot exist (a soft 404). */
export function looksLikeBaseline(probe: FileProbe, baseline: FileProbe): boolean {
  if (probe.status !== baseline.status) return false;
  if (probe.head === baseline.head) return true;
  const longer = Math.max(probe.bytes, baseline.bytes, 1);
  return Math.abs(probe.bytes - baseline.bytes) / longer < 0.05;
}

/**
 * A hit needs a 200, an answer unlike the random path's, and the file's own signature: a site
 * that answers everything with its home page reports nothing. Every scheme the site answers is
 * probed (one observation each): a file served over http only is as exposed as over https.
 */
export function exposedFileChecks(observations: readonly FilesObservation[]): Finding[] {
  const out: Finding[] = [];
  for (const spec of EXPOSED_FILES) {
    const hits = observations.flatMap((obs) => {
      const probe = obs.probes.find((p) => p.path === spec.path);
      if (!probe || probe.status !== 200 || looksLikeBaseline(probe, obs.baseline) || !spec.signature(probe))
        return [];
      return [exposedFileEvidence(spec.kind, `${obs.origin}${spec.path}`, probe)];
    });
    if (hits.length === 0) continue;
    const critical = spec.kind === 'git' || spec.kind === 'env';
    out.push(
      fail(
        `files.exposed.${spec.path
          .replace(/^\/\.?/, '')
          .replace(/[^a-z0-9]+/gi, '-')
          .toLowerCase()}`,
        'files',
        `${spec.path} is publicly readable`,
        critical ? 'critical' : 'high',
        hits.join('; '),
        spec.kind === 'git'
          ? 'Block /.git/ at the web server and remove the directory from the web root; rotate any secret in the history.'
          : spec.kind === 'env'
            ? 'Remove .env from the web root and rotate every secret it contains.'
            : 'Remove backups and database dumps from the web root; keep them in storage that is not served.',
        critical ? -40 : -20,
      ),
    );
  }
  if (out.length === 0)
    out.push(
      pass(
        'files.exposed.none',
        'files',
        'No exposed repository, environment or backup files',
        observations
          .map(
            (o) =>
              `${o.probes.length} paths probed at ${o.origin}; not-found answer: HTTP ${o.baseline.status}, ${o.baseline.bytes} bytes`,
          )
          .join('; '),
      ),
    );
  return out;
}

/** /.well-known/security.txt per RFC 9116: Contact and Expires required, Expires in the future. */
export function securityTxtChecks(res: TextResource | null, now: Date): Finding[] {
  const looksText =
    res && res.status === 200 && !/<html/i.test(res.body) && /^\s*(contact|expires)\s*:/im.test(res.body);
  if (!res || !looksText)
    return [
      fail(
        'files.security-txt.missing',
        'files',
        'No security.txt',
        'low',
        res ? `HTTP ${res.status}` : 'not fetched',
        'Publish /.well-known/security.txt with Contact and Expires fields (RFC 9116).',
      ),
    ];
  const fields = new Map<string, string[]>();
  for (const line of res.body.split(/\r?\n/)) {
    const m = /^\s*([A-Za-z-]+)\s*:\s*(.+?)\s*$/.exec(line);
    if (!m || line.trim().startsWith('#')) continue;
    const key = m[1]!.toLowerCase();
    fields.set(key, [...(fields.get(key) ?? []), m[2]!]);
  }
  const problems: string[] = [];
  if (!fields.get('contact')?.length) problems.push('no Contact field');
  const expires = fields.get('expires') ?? [];
  if (expires.length === 0) problems.push('no Expires field');
  else if (expires.length > 1) problems.push('Expires appears more than once');
  else {
    const at = new Date(expires[0]!);
    if (Number.isNaN(at.getTime())) problems.push(`Expires is not a date: ${expires[0]}`);
    else if (at <= now) problems.push(`expired on ${at.toISOString()}`);
  }
  if (problems.length)
    return [
      fail(
        'files.security-txt.invalid',
        'files',
        'security.txt is incomplete or expired',
        'low',
        `${problems.join('; ')}: ${quote(res.body.trim(), 200)}`,
        'Give security.txt a Contact field and one Expires date less than a year ahead, and renew it before it passes.',
      ),
    ];
  return [
    pass(
      'files.security-txt.ok',
      'files',
      'security.txt is published and current',
      quote(res.body.trim(), 200),
    ),
  ];
}
