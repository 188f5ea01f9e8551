import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Site {
  port: number;
  close(): Promise<void>;
}

/**
 * The site an audit looks at: a small page on loopback (the scanner reaches it through
 * `SCANNER_HTTP_PORT` with `SCANNER_ALLOW_LOOPBACK`, its name answered by a DNS peer).
 */
export async function startSite(): Promise<Site> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'x-content-type-options': 'nosniff' });
    res.end(
      '<!doctype html><html lang="en"><head><title>Shop</title></head><body><h1>Shop</h1></body></html>',
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
