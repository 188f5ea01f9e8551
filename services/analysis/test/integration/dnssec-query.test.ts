import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createSocket, type Socket } from 'node:dgram';
import dnsPacket from 'dns-packet';
import { startDnsPeer, type DnsPeer } from '@meridian/test-peers';
import { askDnskey, type DnsServer } from '../../src/adapters/scanner/dnssec.js';
import { createScannerResolver } from '../../src/adapters/scanner/resolver.js';

const TIMEOUT_MS = 1500;
let peer: DnsPeer;
let server: DnsServer;

beforeAll(async () => {
  peer = await startDnsPeer({
    'signed.example': { signed: true },
    'unsigned.example': { A: ['192.0.2.1'] },
    'big.example': { signed: true, dnskeys: 80 },
  });
  server = { host: '127.0.0.1', port: Number(peer.address.split(':')[1]) };
});
afterAll(() => peer.close());

describe('the DNSSEC query, asked of a real DNS server', () => {
  it('reads the AD bit and the DNSKEY answers', async () => {
    expect(await askDnskey(server, 'signed.example', TIMEOUT_MS)).toBe('validated');
    expect(await askDnskey(server, 'SIGNED.example.', TIMEOUT_MS)).toBe('validated');
    expect(await askDnskey(server, 'unsigned.example', TIMEOUT_MS)).toBe('unsigned');
    expect(await askDnskey(server, 'absent.example', TIMEOUT_MS)).toBe('unsigned');
  });

  it('asks again over TCP when the UDP answer is truncated', async () => {
    expect(await askDnskey(server, 'big.example', TIMEOUT_MS)).toBe('validated');
  });

  it('is unknown when the server does not answer', async () => {
    const silent = createSocket('udp4');
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
    try {
      const state = await askDnskey(
        { host: '127.0.0.1', port: silent.address().port },
        'signed.example',
        300,
      );
      expect(state).toBe('unknown');
    } finally {
      silent.close();
    }
  });

  it('is asked of the first of DNS_SERVERS by the scanner resolver', async () => {
    const resolver = createScannerResolver({ servers: [peer.address], timeoutMs: TIMEOUT_MS });
    expect(await resolver.dnssec('signed.example')).toBe('validated');
  });
});

/**
 * A resolver in front of the peer: it passes each query on, then sends the peer's true answer
 * from a second socket (another port than the one asked) and, a moment later, an answer made
 * up to say 'unsigned' from the port asked.
 */
async function spoofingFront(): Promise<{ server: DnsServer; close(): void }> {
  const front = await bound();
  const side = await bound();
  let client: { address: string; port: number } | undefined;
  front.on('message', (query, from) => {
    client = from;
    side.send(query, server.port, server.host);
  });
  side.on('message', (answer) => {
    if (!client) return;
    const { address, port } = client;
    side.send(answer, port, address);
    const reply = dnsPacket.decode(answer);
    const unsigned = dnsPacket.encode({
      ...reply,
      flags: reply.flags! & ~dnsPacket.AUTHENTIC_DATA,
      answers: [],
    });
    setTimeout(() => front.send(unsigned, port, address), 50);
  });
  return {
    server: { host: '127.0.0.1', port: front.address().port },
    close: () => {
      front.close();
      side.close();
    },
  };
}

async function bound(): Promise<Socket> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return socket;
}

describe('a reply from another sender', () => {
  let spoofer: { server: DnsServer; close(): void } | undefined;
  afterEach(() => spoofer?.close());

  it('is ignored: only the address and port asked can answer', async () => {
    spoofer = await spoofingFront();
    expect(await askDnskey(spoofer.server, 'signed.example', TIMEOUT_MS)).toBe('unsigned');
  });
});
