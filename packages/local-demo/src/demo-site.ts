import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import https from 'node:https';

// Looked up, not imported: an ES import of node:http loads undici and http2 (http-kit's node-http.ts).
const http = process.getBuiltinModule('node:http');
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { DEMO_HOST } from './demo-zone.js';

export interface DemoSite {
  httpPort: number;
  httpsPort: number;
  /** The demo's own certificate authority: the scanner trusts it for the demo site only. */
  caFile: string;
  close(): Promise<void>;
}

interface Pem {
  key: string;
  cert: string;
}

/** A CA and the site's certificate, made once under DATA_DIR/demo (a restart keeps them). */
async function certificates(dir: string): Promise<{ ca: Pem; leaf: Pem }> {
  const files = ['ca-key.pem', 'ca.pem', 'site-key.pem', 'site.pem'].map((f) => join(dir, f));
  if (files.every((f) => existsSync(f))) {
    const [caKey, ca, key, cert] = files.map((f) => readFileSync(f, 'utf8'));
    return { ca: { key: caKey!, cert: ca! }, leaf: { key: key!, cert: cert! } };
  }
  const ca = await generate([{ name: 'commonName', value: 'Meridian demo CA (this machine only)' }], {
    keySize: 2048,
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 3650 * 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  const leaf = await generate([{ name: 'commonName', value: DEMO_HOST }], {
    keySize: 2048,
    algorithm: 'sha256',
    notBeforeDate: new Date(Date.now() - 86_400_000),
    notAfterDate: new Date(Date.now() + 365 * 86_400_000),
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: DEMO_HOST }] },
    ],
  });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  [ca.private, ca.cert, leaf.private, leaf.cert].forEach((pem, i) =>
    writeFileSync(files[i]!, pem, { mode: 0o600 }),
  );
  return { ca: { key: ca.private, cert: ca.cert }, leaf: { key: leaf.private, cert: leaf.cert } };
}

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Meridian demo shop</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head><body>
<p><strong>Demo.</strong> This is not a real shop: it is a site served by your own machine so that you
can try a Meridian audit offline. It has a few mistakes on purpose.</p>
<h1>Meridian demo shop</h1><script>document.title += ' (demo)';</script></body></html>`;

/**
 * A few mistakes a real site makes, so the report has something to say: an inline-script CSP,
 * a short HSTS, a session cookie scripts can read, an exposed `.env` (with a made-up secret the
 * report redacts), no security.txt. Everything else is as a careful site answers.
 */
function answer(req: IncomingMessage, res: ServerResponse): void {
  const path = new URL(req.url ?? '/', `https://${DEMO_HOST}`).pathname;
  const headers = {
    'content-security-policy': "default-src 'self'; script-src 'self' 'unsafe-inline'; object-src 'none'",
    'strict-transport-security': 'max-age=86400',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'strict-origin-when-cross-origin',
  };
  if (path === '/')
    return void res
      .writeHead(200, {
        ...headers,
        'content-type': 'text/html; charset=utf-8',
        'set-cookie': 'demo_session=made-up; Secure; SameSite=Lax; Path=/',
      })
      .end(PAGE);
  if (path === '/.env')
    return void res
      .writeHead(200, { 'content-type': 'text/plain' })
      .end('APP_ENV=demo\nSECRET_KEY=demo-not-a-real-secret\n');
  if (path === '/robots.txt')
    return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
  res.writeHead(404, { ...headers, 'content-type': 'text/plain' }).end('Not Found');
}

const listening = (server: Server) =>
  new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });

/** The demo site over http (a redirect to https) and https, on free loopback ports. */
export async function startDemoSite(dataDir: string): Promise<DemoSite> {
  const dir = join(dataDir, 'demo');
  const { leaf } = await certificates(dir);
  const secure = https.createServer({ key: leaf.key, cert: leaf.cert }, answer);
  const plain = http.createServer((req, res) => {
    res.writeHead(301, { location: `https://${DEMO_HOST}${req.url ?? '/'}` }).end();
  });
  const [httpPort, httpsPort] = await Promise.all([listening(plain), listening(secure)]);
  return {
    httpPort,
    httpsPort,
    caFile: join(dir, 'ca.pem'),
    close: async () => {
      for (const server of [plain, secure]) {
        server.closeAllConnections();
        await new Promise((r) => server.close(r));
      }
    },
  };
}
