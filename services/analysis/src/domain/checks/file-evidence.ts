import type { FileProbe } from '../observations.js';

/**
 * What the report says about an exposed file. An exposed file is full of secrets, and a report
 * travels (its PDF, its share link), so the evidence names the file, its keys and the lengths of
 * their values, never a value itself.
 */
export type ExposedKind = 'git' | 'env' | 'backup' | 'dump';

const MAX_KEYS = 20;

const length = (value: string) => `${value.length} character${value.length === 1 ? '' : 's'}`;

function keyList(keys: string[]): string {
  if (keys.length === 0) return 'no keys read';
  const shown = keys.slice(0, MAX_KEYS).join(', ');
  return keys.length > MAX_KEYS ? `${shown} and ${keys.length - MAX_KEYS} more` : shown;
}

/** `NAME=value` lines (an optional `export`, optional quotes): each name with its value's length. */
function envKeys(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!m) continue;
    const value = m[2]!.replace(/^(['"])(.*)\1$/, '$2');
    out.push(`${m[1]} (${length(value)})`);
  }
  return out;
}

/** A user (and password) in a URL or an scp-like address: `https://user:pw@host`, `user:pw@host`. */
const USER_PART = /^([a-z][a-z0-9+.-]*:\/\/)?[^/@\s"]+@/i;

/**
 * A subsection names a URL (`[url "https://x-access-token:TOKEN@github.com/"]`, `[credential
 * "https://user:PW@host"]`): it is shown with its user part cut out, which is said.
 */
function sectionOf(name: string, sub: string | undefined): { section: string; cut: boolean } {
  if (sub === undefined) return { section: name, cut: false };
  const shown = sub.replace(USER_PART, '$1');
  return { section: `${name}.${shown}`, cut: shown !== sub };
}

/** `[section "sub"]` then `key = value`: each `section.sub.key` with its value's length. */
function gitConfigKeys(text: string): string[] {
  const out: string[] = [];
  let section = { section: '', cut: false };
  for (const line of text.split(/\r?\n/)) {
    const head = /^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"([^"]*)")?\s*\]/.exec(line);
    if (head) {
      section = sectionOf(head[1]!, head[2]);
      continue;
    }
    const m = /^\s*([A-Za-z][A-Za-z0-9-]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!m) continue;
    const value = m[2]!;
    // A URL with a user part carries a credential: said so, still without the value.
    const secret = USER_PART.test(value) ? ', with credentials in it' : '';
    const cut = section.cut ? ', credentials cut out of its section name' : '';
    out.push(`${section.section ? `${section.section}.` : ''}${m[1]} (${length(value)}${secret}${cut})`);
  }
  return out;
}

/** Table names a SQL dump creates or fills; the rows themselves are never quoted. */
function dumpTables(text: string): string[] {
  const names = new Set<string>();
  for (const m of text.matchAll(
    /\b(?:CREATE TABLE(?: IF NOT EXISTS)?|INSERT INTO)\s+([`"[]?[\w.]+[`"\]]?)/gi,
  ))
    names.add(m[1]!.replace(/[`"[\]]/g, ''));
  return [...names];
}

/** The evidence line of one exposed file at `url`. */
export function exposedFileEvidence(kind: ExposedKind, url: string, probe: FileProbe): string {
  const seen = `${url}: HTTP 200, ${probe.bytes} bytes`;
  if (kind === 'env') return `${seen}; keys: ${keyList(envKeys(probe.head))}`;
  if (kind === 'dump') return `${seen}; SQL dump of tables: ${keyList(dumpTables(probe.head))}`;
  if (kind === 'backup') return `${seen}; a ${probe.path.endsWith('.zip') ? 'zip' : 'gzip'} archive`;
  if (/^\s*ref: refs\//.test(probe.head)) return `${seen}; a Git HEAD naming a branch ref`;
  return `${seen}; Git config keys: ${keyList(gitConfigKeys(probe.head))}`;
}
