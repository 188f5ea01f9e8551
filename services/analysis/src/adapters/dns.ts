import { Resolver } from 'node:dns/promises';
import { isDnsNameAbsent } from '@meridian/contracts';

/** The lookups the platform makes, through the configured resolvers only (DNS_SERVERS). */
export interface DnsClient {
  /** TXT records of a name, each as its strings; [] when the name has none or does not exist. */
  txt(name: string): Promise<string[][]>;
  /** NS host names of the zone that holds `hostname` (the name itself, else its parents). */
  zoneNameServers(hostname: string): Promise<{ zone: string; nameServers: string[] } | undefined>;
}

export function dnsClient(servers: string[], timeoutMs = 5000): DnsClient {
  const resolver = new Resolver({ timeout: timeoutMs, tries: 2 });
  resolver.setServers(servers);
  return {
    async txt(name) {
      try {
        return await resolver.resolveTxt(name);
      } catch (err) {
        if (isDnsNameAbsent(err)) return [];
        throw err;
      }
    },
    async zoneNameServers(hostname) {
      const labels = hostname.split('.');
      for (let i = 0; i < labels.length - 1; i++) {
        const zone = labels.slice(i).join('.');
        try {
          const ns = await resolver.resolveNs(zone);
          if (ns.length > 0) return { zone, nameServers: ns };
        } catch (err) {
          if (!isDnsNameAbsent(err)) throw err;
        }
      }
      return undefined;
    },
  };
}
