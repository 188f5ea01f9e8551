import dns2 from 'dns2';
import { bindDnsServer, type BoundDns, type DnsHandler } from './dns-server.js';
import { inDemoZone, recordsOf } from './demo-zone.js';

const { Packet } = dns2;

/**
 * The all-in-one's resolver: authoritative for the demo zone (the demo site and what `demo:txt`
 * published, read from DATA_DIR at each query) and nothing else. Any other name is REFUSED, not
 * forwarded: no lookup leaves the machine unless the person sets DNS_SERVERS to a resolver of
 * their choosing.
 */
export async function startDemoResolver(dataDir: string): Promise<BoundDns> {
  const handle: DnsHandler = (request, send) => {
    const response = Packet.createResponseFromRequest(request);
    const [question] = request.questions;
    const name = (question?.name ?? '').toLowerCase().replace(/\.$/, '');
    if (!question || !inDemoZone(name)) {
      response.header.rcode = Packet.RCODE.REFUSED;
      void send(response);
      return;
    }
    const records = recordsOf(dataDir, name);
    if (!records) response.header.rcode = Packet.RCODE.NXDOMAIN;
    const base = { name: question.name, class: Packet.CLASS.IN, ttl: 1 };
    const answers: object[] = [];
    if (question.type === Packet.TYPE.A)
      for (const address of records?.A ?? []) answers.push({ ...base, type: Packet.TYPE.A, address });
    if (question.type === Packet.TYPE.TXT)
      for (const data of records?.TXT ?? []) answers.push({ ...base, type: Packet.TYPE.TXT, data });
    if (question.type === Packet.TYPE.MX)
      for (const mx of records?.MX ?? []) answers.push({ ...base, type: Packet.TYPE.MX, ...mx });
    response.answers.push(...(answers as never[]));
    void send(response);
  };
  return bindDnsServer(handle);
}
