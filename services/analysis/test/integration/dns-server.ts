import dns2 from 'dns2';

const { Packet } = dns2;

/** The records of one name, as the test zones declare them. */
export interface ZoneEntry {
  A?: string[];
  TXT?: string[];
  MX?: { exchange: string; priority: number }[];
  CAA?: { tag: string; value: string }[];
  /** A signed zone: DNSKEY answered and the AD flag set, as a validating resolver would. */
  signed?: boolean;
}

export interface TestDns {
  server: string;
  close(): Promise<void>;
}

/** A real DNS server (dns2, UDP) on loopback serving the given names; others answer NXDOMAIN. */
export async function startDns(zone: Record<string, ZoneEntry>): Promise<TestDns> {
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const question = request.questions[0]!;
      const name = question.name.toLowerCase().replace(/\.$/, '');
      const entry = zone[name];
      if (!entry) {
        response.header.rcode = Packet.RCODE.NXDOMAIN;
        void send(response);
        return;
      }
      const base = { name: question.name, class: Packet.CLASS.IN, ttl: 60 };
      const answers: object[] = [];
      if (question.type === Packet.TYPE.A)
        for (const address of entry.A ?? []) answers.push({ ...base, type: Packet.TYPE.A, address });
      if (question.type === Packet.TYPE.TXT)
        for (const data of entry.TXT ?? []) answers.push({ ...base, type: Packet.TYPE.TXT, data });
      if (question.type === Packet.TYPE.MX)
        for (const mx of entry.MX ?? []) answers.push({ ...base, type: Packet.TYPE.MX, ...mx });
      if (question.type === Packet.TYPE.CAA)
        for (const caa of entry.CAA ?? []) answers.push({ ...base, type: Packet.TYPE.CAA, flags: 0, ...caa });
      if (question.type === Packet.TYPE.DNSKEY && entry.signed)
        answers.push({
          ...base,
          type: Packet.TYPE.DNSKEY,
          flags: 257,
          protocol: 3,
          algorithm: 13,
          key: Buffer.alloc(64, 7).toString('base64'),
        });
      // The AD bit (RFC 4035 3.2.3), which dns2's Header type leaves out but its encoder writes.
      if (entry.signed) (response.header as unknown as { ad: number }).ad = 1;
      response.answers.push(...(answers as never[]));
      void send(response);
    },
  });
  const addresses = await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  return { server: `127.0.0.1:${addresses.udp!.port}`, close: () => server.close() };
}
