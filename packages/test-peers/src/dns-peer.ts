import dns2 from 'dns2';

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
  const { udp, tcp, port } = await bindUdpAndTcp(handle);
  return {
    address: `127.0.0.1:${port}`,
    zone,
    close: async () => {
      await Promise.all([udp.close(), tcp.close()]);
    },
  };
}

type DnsServer = ReturnType<typeof dns2.createServer>;

/** Listens, or rejects with the server's own error (dns2 would otherwise throw it as an event). */
function listenOn(server: DnsServer, options: Parameters<DnsServer['listen']>[0]): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options).then(() => {
      server.off('error', reject);
      resolve();
    }, reject);
  });
}

/**
 * TCP first on a free port, then UDP on the same number. A port free for TCP may be bound by another
 * UDP socket of the tests running beside this one (or the reverse): then both close and another
 * port is tried.
 */
async function bindUdpAndTcp(handle: DnsHandler): Promise<{ udp: DnsServer; tcp: DnsServer; port: number }> {
  for (let attempt = 1; ; attempt++) {
    const tcp = dns2.createServer({ tcp: true, handle });
    const udp = dns2.createServer({ udp: true, handle });
    try {
      await listenOn(tcp, { tcp: { port: 0, address: '127.0.0.1' } });
      const port = tcp.addresses().tcp?.port;
      if (!port) throw new Error('the DNS peer did not bind');
      await listenOn(udp, { udp: { port, address: '127.0.0.1' } });
      return { udp, tcp, port };
    } catch (err) {
      await Promise.all([tcp.close().catch(() => undefined), udp.close().catch(() => undefined)]);
      if (attempt >= 20 || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    }
  }
}
