import { createSocket } from 'node:dgram';
import { Resolver } from 'node:dns/promises';
import { randomInt } from 'node:crypto';
import { isIP } from 'node:net';
import { isDnsNameAbsent } from '@meridian/contracts';

/** DNSSEC as the configured resolver reports it. */
export type DnssecState = 'validated' | 'signed' | 'unsigned' | 'unknown';

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

function splitServer(server: string): { host: string; port: number } {
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(server) ?? /^([^:]+)(?::(\d+))?$/.exec(server);
  return { host: m?.[1] ?? server, port: m?.[2] ? Number(m[2]) : 53 };
}

/** A DNSKEY query with the DO bit (EDNS0), for the AD flag and the answer count. */
function dnskeyQuery(name: string, id: number): Buffer {
  const labels = name.replace(/\.$/, '').split('.');
  const qname = Buffer.concat([
    ...labels.map((l) => Buffer.concat([Buffer.from([Buffer.byteLength(l)]), Buffer.from(l)])),
    Buffer.from([0]),
  ]);
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(0x0120, 2); // RD + AD (asks for the AD bit, RFC 6840 5.7)
  header.writeUInt16BE(1, 4); // QDCOUNT
  header.writeUInt16BE(1, 10); // ARCOUNT: the OPT record
  const question = Buffer.alloc(4);
  question.writeUInt16BE(48, 0); // DNSKEY
  question.writeUInt16BE(1, 2); // IN
  const opt = Buffer.from([0, 0, 41, 0x10, 0x00, 0, 0, 0x80, 0x00, 0, 0]); // OPT, 4096, DO
  return Buffer.concat([header, qname, question, opt]);
}

function askDnskey(server: { host: string; port: number }, name: string, timeoutMs: number) {
  return new Promise<DnssecState>((resolve) => {
    const id = randomInt(0, 0xffff);
    const socket = createSocket(isIP(server.host) === 6 ? 'udp6' : 'udp4');
    const done = (state: DnssecState) => {
      clearTimeout(timer);
      socket.close();
      resolve(state);
    };
    const timer = setTimeout(() => done('unknown'), timeoutMs);
    socket.on('error', () => done('unknown'));
    socket.on('message', (msg) => {
      if (msg.length < 12 || msg.readUInt16BE(0) !== id) return;
      const flags = msg.readUInt16BE(2);
      const rcode = flags & 0x0f;
      if (rcode === 3) return done('unsigned');
      if (rcode !== 0) return done('unknown');
      const answers = msg.readUInt16BE(6);
      if (answers === 0) return done('unsigned');
      done(flags & 0x0020 ? 'validated' : 'signed');
    });
    socket.send(dnskeyQuery(name, id), server.port, server.host);
  });
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
