import dns2 from 'dns2';

const { Packet } = dns2;

/** A real DNS server on loopback (dns2, UDP) answering A and TXT records that the test changes. */
export async function startDnsZone(): Promise<{
  address: string;
  a: Map<string, string[]>;
  txt: Map<string, string[]>;
  close(): Promise<void>;
}> {
  const a = new Map<string, string[]>();
  const txt = new Map<string, string[]>();
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      const name = (question?.name ?? '').toLowerCase().replace(/\.$/, '');
      const base = { name: question?.name ?? name, class: Packet.CLASS.IN, ttl: 1 };
      if (question?.type === Packet.TYPE.A)
        for (const address of a.get(name) ?? [])
          response.answers.push({ ...base, type: Packet.TYPE.A, address } as never);
      if (question?.type === Packet.TYPE.TXT)
        for (const data of txt.get(name) ?? [])
          response.answers.push({ ...base, type: Packet.TYPE.TXT, data } as never);
      if (!a.has(name) && !txt.has(name)) response.header.rcode = Packet.RCODE.NXDOMAIN;
      send(response);
    },
  });
  await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  const port = server.addresses().udp?.port;
  if (!port) throw new Error('the DNS zone server did not bind');
  return { address: `127.0.0.1:${port}`, a, txt, close: () => server.close() };
}
