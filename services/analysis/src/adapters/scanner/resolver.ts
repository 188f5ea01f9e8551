import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isDnsNameAbsent } from '@meridian/contracts';
import { askDnskey, type DnsServer, type DnssecState } from './dnssec.js';

/** The DNS the scanner uses: only the servers of DNS_SERVERS, never the system's. */
export interface ScannerResolver {
  addresses(host: string): Promise<string[]>;
  txt(name: string): Promise<string[]>;
  mx(name: string): Promise<{ exchange: string; priority: number }[]>;
  caa(name: string): Promise<{ tag: string; value: string; critical: boolean }[]>;
  dnssec(name: string): Promise<DnssecState>;
}

/** The answer, or [] when the name or record type does not exist; other failures throw. */
async function orEmpty<T>(query: Promise<T[]>): Promise<T[]> {
  try {
    return await query;
  } catch (err) {
    if (isDnsNameAbsent(err)) return [];
    throw err;
  }
}

function splitServer(server: string): DnsServer {
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(server) ?? /^([^:]+)(?::(\d+))?$/.exec(server);
  return { host: m?.[1] ?? server, port: m?.[2] ? Number(m[2]) : 53 };
}

export function createScannerResolver(options: { servers: string[]; timeoutMs: number }): ScannerResolver {
  const resolver = new Resolver({ timeout: options.timeoutMs, tries: 2 });
  resolver.setServers(options.servers);
  const first = splitServer(options.servers[0]!);
  return {
    async addresses(host) {
      if (isIP(host)) return [host];
      const [v4, v6] = await Promise.all([
        orEmpty(resolver.resolve4(host)),
        orEmpty(resolver.resolve6(host)),
      ]);
      return [...v4, ...v6];
    },
    async txt(name) {
      return (await orEmpty(resolver.resolveTxt(name))).map((chunks) => chunks.join(''));
    },
    mx: (name) => orEmpty(resolver.resolveMx(name)),
    async caa(name) {
      const records = await orEmpty(resolver.resolveCaa(name));
      return records.map((r) => {
        const tag = (['issue', 'issuewild', 'iodef', 'contactemail', 'contactphone'] as const).find(
          (k) => typeof r[k] === 'string',
        );
        return { tag: tag ?? 'unknown', value: tag ? String(r[tag]) : '', critical: r.critical !== 0 };
      });
    },
    dnssec: (name) => askDnskey(first, name, options.timeoutMs),
  };
}
