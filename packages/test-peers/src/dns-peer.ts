import dns2 from 'dns2';
import { bindDnsServer } from '@meridian/local-demo';

const { Packet } = dns2;
type DnsHandler = dns2.DnsHandler;

/** The records of one name a test declares. */
export interface DnsEntry {
  A?: string[];
  TXT?: string[];
  NS?: string[];
  MX?: { exchange: string; priority: number }[];
  CAA?: { tag: string; value: string }[];
  /** A signed zone: DNSKEY answered and the AD flag set, as a validating resolver would. */
  signed?: boolean;
  /**
   * DNSKEY records of a signed zone (1 unless set). Some 60 make an answer larger than the 4096
   * bytes a query may ask for over UDP: the UDP answer is then truncated (TC) and only TCP has it.
   */
  dnskeys?: number;
}

/** The records the server answers, by type; tests change them while it runs. */
export interface DnsZone {
  A: Map<string, string[]>;
  TXT: Map<string, string[]>;
  NS: Map<string, string[]>;
  MX: Map<string, { exchange: string; priority: number }[]>;
  CAA: Map<string, { tag: string; value: string }[]>;
  signed: Set<string>;
  dnskeys: Map<string, number>;
}

export interface DnsPeer {
  /** `127.0.0.1:<port>`, for DNS_SERVERS: UDP, and TCP on the same port. */
  address: string;
  zone: DnsZone;
  close(): Promise<void>;
}

const dnskey = (n: number) => ({
  flags: 257,
  protocol: 3,
  algorithm: 13,
  key: Buffer.alloc(64, n % 256).toString('base64'),
});

/**
 * A real DNS server on loopback (dns2 over UDP and TCP) answering the records of `zone`, which starts as
 * `entries`; a name it has no record of is NXDOMAIN, a known name without the asked type is empty,
 * as an authoritative server answers.
 */
export async function startDnsPeer(entries: Record<string, DnsEntry> = {}): Promise<DnsPeer> {
  const zone: DnsZone = {
    A: new Map(),
    TXT: new Map(),
    NS: new Map(),
    MX: new Map(),
    CAA: new Map(),
    signed: new Set(),
    dnskeys: new Map(),
  };
  for (const [name, entry] of Object.entries(entries)) {
    for (const type of ['A', 'TXT', 'NS', 'MX', 'CAA'] as const)
      if (entry[type]) (zone[type] as Map<string, unknown>).set(name, entry[type]);
    if (entry.signed) zone.signed.add(name);
    if (entry.dnskeys !== undefined) zone.dnskeys.set(name, entry.dnskeys);
  }
  const handle: DnsHandler = (request, send) => {
    const response = Packet.createResponseFromRequest(request);
    const [question] = request.questions;
    const name = (question?.name ?? '').toLowerCase().replace(/\.$/, '');
    const known =
      zone.signed.has(name) || (['A', 'TXT', 'NS', 'MX', 'CAA'] as const).some((t) => zone[t].has(name));
    if (!question || !known) {
      response.header.rcode = Packet.RCODE.NXDOMAIN;
      void send(response);
      return;
    }
    const base = { name: question.name, class: Packet.CLASS.IN, ttl: 1 };
    const answers: object[] = [];
    if (question.type === Packet.TYPE.A)
      for (const address of zone.A.get(name) ?? []) answers.push({ ...base, type: Packet.TYPE.A, address });
    if (question.type === Packet.TYPE.TXT)
      for (const data of zone.TXT.get(name) ?? []) answers.push({ ...base, type: Packet.TYPE.TXT, data });
    if (question.type === Packet.TYPE.NS)
      for (const ns of zone.NS.get(name) ?? []) answers.push({ ...base, type: Packet.TYPE.NS, ns });
    if (question.type === Packet.TYPE.MX)
      for (const mx of zone.MX.get(name) ?? []) answers.push({ ...base, type: Packet.TYPE.MX, ...mx });
    if (question.type === Packet.TYPE.CAA)
      for (const caa of zone.CAA.get(name) ?? [])
        answers.push({ ...base, type: Packet.TYPE.CAA, flags: 0, ...caa });
    if (question.type === Packet.TYPE.DNSKEY && zone.signed.has(name))
      for (let n = 0; n < (zone.dnskeys.get(name) ?? 1); n++)
        answers.push({ ...base, type: Packet.TYPE.DNSKEY, ...dnskey(n) });
    // The AD bit (RFC 4035 3.2.3), which dns2's Header type leaves out but its encoder writes.
    if (zone.signed.has(name)) (response.header as unknown as { ad: number }).ad = 1;
    response.answers.push(...(answers as never[]));
    void send(response);
  };
  const bound = await bindDnsServer(handle);
  return { address: bound.address, zone, close: () => bound.close() };
}
