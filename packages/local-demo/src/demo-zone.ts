import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The demo site's name. `.test` is reserved for testing (RFC 6761): no public resolver answers it,
 * so only the all-in-one's own resolver can, and a report of it can never be mistaken for a real
 * site's.
 */
export const DEMO_HOST = 'shop.meridian-demo.test';
const DEMO_ZONE = 'meridian-demo.test';

/** The records the demo zone always has: the site on loopback, its mail and its policies. */
export interface ZoneRecords {
  A: string[];
  MX: { exchange: string; priority: number }[];
  TXT: string[];
}

const STATIC: Readonly<Record<string, Partial<ZoneRecords>>> = {
  [DEMO_HOST]: {
    A: ['127.0.0.1'],
    MX: [{ exchange: `mail.${DEMO_HOST}`, priority: 10 }],
    TXT: ['v=spf1 mx ~all'],
  },
  [`mail.${DEMO_HOST}`]: { A: ['127.0.0.1'] },
  [`_dmarc.${DEMO_HOST}`]: { TXT: ['v=DMARC1; p=none'] },
};

const zoneFile = (dataDir: string) => join(dataDir, 'demo', 'zone.json');

/** Whether `name` lies in the demo zone, the only one the resolver answers. */
export const inDemoZone = (name: string): boolean => name === DEMO_ZONE || name.endsWith(`.${DEMO_ZONE}`);

/** TXT records published with `demo:txt`, by name; none when nothing was published yet. */
function publishedTxt(dataDir: string): Record<string, string[]> {
  try {
    const parsed: unknown = JSON.parse(readFileSync(zoneFile(dataDir), 'utf8'));
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, string[]>) : {};
  } catch {
    return {};
  }
}

/** The records of one name: the static ones and the published TXT records; null for an unknown name. */
export function recordsOf(dataDir: string, name: string): Partial<ZoneRecords> | null {
  const published = publishedTxt(dataDir)[name];
  const fixed = STATIC[name];
  if (!fixed && !published) return null;
  return { ...fixed, TXT: [...(fixed?.TXT ?? []), ...(published ?? [])] };
}

/**
 * Publishes one TXT record in the demo zone, as a DNS provider's form would: only names inside the
 * demo zone, one printable value of at most 255 characters. Written whole (a rename), so the
 * resolver never reads half a file.
 */
export function publishTxt(dataDir: string, name: string, value: string): void {
  const host = name.toLowerCase().replace(/\.$/, '');
  if (!host.endsWith(`.${DEMO_HOST}`) && host !== DEMO_HOST)
    throw new Error(`${name} is not in the demo zone: only names under ${DEMO_HOST} can be published`);
  if (!/^[\x20-\x7e]{1,255}$/.test(value)) throw new Error('the value must be 1 to 255 printable characters');
  const records = publishedTxt(dataDir);
  records[host] = [...new Set([...(records[host] ?? []), value])];
  mkdirSync(join(dataDir, 'demo'), { recursive: true });
  const file = zoneFile(dataDir);
  writeFileSync(`${file}.tmp`, JSON.stringify(records, null, 2));
  renameSync(`${file}.tmp`, file);
}
