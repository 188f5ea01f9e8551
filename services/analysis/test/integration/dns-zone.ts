import dns2 from 'dns2';

const { Packet } = dns2;

/** Records the loopback DNS server answers; tests change them while it runs. */
export interface Zone {
  txt: Map<string, string[]>;
  ns: Map<string, string[]>;
}

export interface DnsZoneServer {
  /** `127.0.0.1:<port>`, for DNS_SERVERS. */
  address: string;
  zone: Zone;
  close(): Promise<void>;
}

/**
 * A real DNS server on loopback (dns2 over UDP) serving TXT and NS records from `zone`; any other
 * name or type is NXDOMAIN / empty, as a real authoritative server answers.
 */
export async function startDnsZone(): Promise<DnsZoneServer> {
  const zone: Zone = { txt: new Map(), ns: new Map() };
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      const name = (question?.name ?? '').toLowerCase();
      const known = zone.txt.has(name) || zone.ns.has(name);
      if (question?.type === Packet.TYPE.TXT)
        for (const data of zone.txt.get(name) ?? [])
          response.answers.push({
            name,
            type: Packet.TYPE.TXT,
            class: Packet.CLASS.IN,
            ttl: 1,
            data,
          } as never);
      if (question?.type === Packet.TYPE.NS)
        for (const ns of zone.ns.get(name) ?? [])
          response.answers.push({ name, type: Packet.TYPE.NS, class: Packet.CLASS.IN, ttl: 1, ns } as never);
      if (!known) response.header.rcode = Packet.RCODE.NXDOMAIN;
      send(response);
    },
  });
  await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  const port = server.addresses().udp?.port;
  if (!port) throw new Error('the DNS zone server did not bind');
  return { address: `127.0.0.1:${port}`, zone, close: () => server.close() };
}
