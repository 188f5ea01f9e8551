import dns2 from 'dns2';

export type DnsHandler = dns2.DnsHandler;
type DnsServer = ReturnType<typeof dns2.createServer>;

export interface BoundDns {
  /** `127.0.0.1:<port>`: UDP, and TCP on the same port. */
  address: string;
  close(): Promise<void>;
}

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
 * A DNS server on loopback, UDP and TCP on one port: TCP first on a free port, then UDP on the same
 * number. A port free for TCP may be bound by another UDP socket (or the reverse): then both close
 * and another port is tried.
 */
export async function bindDnsServer(handle: DnsHandler): Promise<BoundDns> {
  for (let attempt = 1; ; attempt++) {
    const tcp = dns2.createServer({ tcp: true, handle });
    const udp = dns2.createServer({ udp: true, handle });
    try {
      await listenOn(tcp, { tcp: { port: 0, address: '127.0.0.1' } });
      const port = tcp.addresses().tcp?.port;
      if (!port) throw new Error('the DNS server did not bind');
      await listenOn(udp, { udp: { port, address: '127.0.0.1' } });
      return {
        address: `127.0.0.1:${port}`,
        close: async () => {
          await Promise.all([udp.close(), tcp.close()]);
        },
      };
    } catch (err) {
      await Promise.all([tcp.close().catch(() => undefined), udp.close().catch(() => undefined)]);
      if (attempt >= 20 || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    }
  }
}
