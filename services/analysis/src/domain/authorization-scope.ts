import { ok, refuse, type Result } from '@meridian/contracts';
import type { AnalysisRefusal } from './refusals.js';

const within = (host: string, domain: string) => host === domain || host.endsWith(`.${domain}`);

/**
 * The scope of an authorization, as the pipeline reads it (src/domain/scope.ts): path prefixes of
 * the domain (`/app/`), host names (`shop.example.com`, `*.example.com`) and URL prefixes
 * (`https://example.com/app/`). Each must stay on the authorized domain or its subdomains: an
 * account cannot authorize tests of somebody else's host. Empty: the domain, every path.
 */
export function parseScope(entries: string[], domain: string): Result<string[], AnalysisRefusal> {
  const out: string[] = [];
  for (const raw of entries) {
    const entry = raw.trim().toLowerCase();
    if (entry.startsWith('/')) {
      out.push(entry);
      continue;
    }
    let host: string;
    if (/^https?:\/\//.test(entry)) {
      try {
        host = new URL(entry).hostname;
      } catch {
        return refuse('validation_failed', `scope: ${raw} is not a URL`);
      }
    } else host = entry.startsWith('*.') ? entry.slice(2) : entry;
    if (!within(host, domain))
      return refuse('validation_failed', `scope: ${raw} is not on ${domain} or one of its subdomains`);
    out.push(entry);
  }
  return ok(out);
}
