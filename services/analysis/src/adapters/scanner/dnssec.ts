import { randomInt } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { connect, isIP } from 'node:net';
import dnsPacket, { type DecodedPacket, type Packet } from 'dns-packet';
import ipaddr from 'ipaddr.js';

/** DNSSEC as the configured resolver reports it. */
export type DnssecState = 'validated' | 'signed' | 'unsigned' | 'unknown';

export interface DnsServer {
  host: string;
  port: number;
}

/** The largest answer a query asks to get over UDP (EDNS0, RFC 6891). */
const UDP_PAYLOAD_SIZE = 4096;

/** A DNSKEY query with the DO bit (RFC 3225) and AD set, which asks for the AD bit (RFC 6840 5.7). */
function dnskeyQuery(name: string): Packet & { id: number } {
  return {
    type: 'query',
    id: randomInt(0, 0x10000),
    flags: dnsPacket.RECURSION_DESIRED | dnsPacket.AUTHENTIC_DATA,
    questions: [{ type: 'DNSKEY', class: 'IN', name }],
    additionals: [
      {
        type: 'OPT',
        name: '.',
        udpPayloadSize: UDP_PAYLOAD_SIZE,
        extendedRcode: 0,
        ednsVersion: 0,
        flags: dnsPacket.DNSSEC_OK,
        flag_do: true,
        options: [],
      },
    ],
  };
}

const bare = (name: string) => name.toLowerCase().replace(/\.$/, '');

/** The reply in `message` to `query`, or undefined when it is none (garbage, another id or question). */
function replyTo(query: Packet & { id: number }, message: Buffer): DecodedPacket | undefined {
  let reply: DecodedPacket;
  try {
    reply = dnsPacket.decode(message);
  } catch {
    return undefined;
  }
  const asked = query.questions![0]!;
  const question = reply.questions?.[0];
  const answersIt =
    reply.type === 'response' &&
    reply.id === query.id &&
    question?.type === asked.type &&
    bare(question.name) === bare(asked.name);
  return answersIt ? reply : undefined;
}

/** What a whole (untruncated) reply says: the AD bit, and whether the zone has keys at all. */
function stateOf(reply: DecodedPacket): DnssecState {
  const rcode = (reply as DecodedPacket & { rcode?: string }).rcode;
  if (rcode === 'NXDOMAIN') return 'unsigned';
  if (rcode !== 'NOERROR') return 'unknown';
  if (!reply.answers?.length) return 'unsigned';
  return reply.flag_ad ? 'validated' : 'signed';
}

function sameAddress(a: string, b: string): boolean {
  try {
    return ipaddr.parse(a).toNormalizedString() === ipaddr.parse(b).toNormalizedString();
  } catch {
    return false;
  }
}

/**
 * The reply over UDP, or undefined at the time limit. A datagram from another address or port
 * than the one asked is ignored, like one of another id: anyone may send one to the socket.
 */
function overUdp(server: DnsServer, query: Packet & { id: number }, timeoutMs: number) {
  return new Promise<DecodedPacket | undefined>((resolve) => {
    const socket = createSocket(isIP(server.host) === 6 ? 'udp6' : 'udp4');
    let settled = false;
    const done = (reply: DecodedPacket | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.close();
      resolve(reply);
    };
    const timer = setTimeout(() => done(undefined), timeoutMs);
    socket.on('error', () => done(undefined));
    socket.on('message', (message, from) => {
      if (from.port !== server.port || !sameAddress(from.address, server.host)) return;
      const reply = replyTo(query, message);
      if (reply) done(reply);
    });
    socket.send(dnsPacket.encode(query), server.port, server.host);
  });
}

/** The reply over TCP (RFC 7766: two bytes of length, then the message), or undefined. */
function overTcp(server: DnsServer, query: Packet & { id: number }, timeoutMs: number) {
  return new Promise<DecodedPacket | undefined>((resolve) => {
    const socket = connect({ host: server.host, port: server.port });
    let received = Buffer.alloc(0);
    const done = (reply: DecodedPacket | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(reply);
    };
    const timer = setTimeout(() => done(undefined), timeoutMs);
    socket.on('error', () => done(undefined));
    socket.on('close', () => done(undefined));
    socket.on('connect', () => socket.write(dnsPacket.streamEncode(query)));
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (received.length < 2) return;
      const length = received.readUInt16BE(0);
      if (received.length >= 2 + length) done(replyTo(query, received.subarray(2, 2 + length)));
    });
  });
}

/**
 * Asks `server` for the DNSKEY records of `name`. A truncated UDP reply (TC) says nothing of the
 * records, so the question is asked again over TCP (RFC 7766 5); no answer on either is 'unknown'.
 */
export async function askDnskey(server: DnsServer, name: string, timeoutMs: number): Promise<DnssecState> {
  const query = dnskeyQuery(name);
  const reply = await overUdp(server, query, timeoutMs);
  if (!reply) return 'unknown';
  if (!reply.flag_tc) return stateOf(reply);
  const whole = await overTcp(server, query, timeoutMs);
  return whole && !whole.flag_tc ? stateOf(whole) : 'unknown';
}
