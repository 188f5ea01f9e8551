import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { SecureVersion } from 'node:tls';
import { generate } from 'selfsigned';

export interface Pem {
  key: string;
  cert: string;
}

/** A test certificate authority and leaf certificates it signs, made at test time. */
export async function makeCa(): Promise<Pem & { leaf(host: string, days?: number): Promise<Pem> }> {
  const ca = await generate([{ name: 'commonName', value: 'Meridian Test CA' }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  return {
    key: ca.private,
    cert: ca.cert,
    async leaf(host, days = 200) {
      const pems = await generate([{ name: 'commonName', value: host }], {
        keySize: 2048,
        algorithm: 'sha256',
        notBeforeDate: new Date(Date.now() - 86_400_000),
        notAfterDate: new Date(Date.now() + days * 86_400_000),
        ca: { key: ca.private, cert: ca.cert },
        extensions: [
          { name: 'basicConstraints', cA: false },
          { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
          { name: 'extKeyUsage', serverAuth: true },
          { name: 'subjectAltName', altNames: [{ type: 2, value: host }] },
        ],
      });
      return { key: pems.private, cert: pems.cert };
    },
  };
}

/** A self-signed certificate for the wrong name. */
export async function selfSigned(host: string): Promise<Pem> {
  const pems = await generate([{ name: 'commonName', value: host }], { keySize: 2048, algorithm: 'sha256' });
  return { key: pems.private, cert: pems.cert };
}

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

export interface Site {
  httpPort: number;
  httpsPort: number;
  /** Every request the site received: method and URL. */
  seen: string[];
  close(): Promise<void>;
}

const listen = (server: http.Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );

/** An HTTP and an HTTPS server on loopback answering with `handler` (scheme in req.headers['x-scheme']). */
export async function startSite(
  tls: Pem & { minVersion?: SecureVersion; maxVersion?: SecureVersion; ciphers?: string },
  handler: Handler,
): Promise<Site> {
  const seen: string[] = [];
  const wrap = (scheme: string) => (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push(`${scheme} ${req.method} ${req.url}`);
      req.headers['x-scheme'] = scheme;
      handler(req, res, Buffer.concat(chunks).toString('utf8'));
    });
  };
  const plain = http.createServer(wrap('http'));
  const secure = https.createServer(tls, wrap('https'));
  const [httpPort, httpsPort] = await Promise.all([listen(plain), listen(secure)]);
  return {
    httpPort,
    httpsPort,
    seen,
    close: async () => {
      plain.closeAllConnections();
      secure.closeAllConnections();
      await Promise.all([new Promise((r) => plain.close(r)), new Promise((r) => secure.close(r))]);
    },
  };
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A site built to pass: every header, good cookies, SRI, security.txt, robots, sitemap. */
export const goodSite: Handler = (req, res) => {
  const url = new URL(req.url ?? '/', 'https://good.test');
  if (req.headers['x-scheme'] === 'http') {
    res.writeHead(301, { location: `https://good.test${url.pathname}` }).end();
    return;
  }
  const headers = {
    'content-security-policy':
      "default-src 'self'; script-src 'self' https://cdn.example.net; object-src 'none'; frame-ancestors 'none'",
    'strict-transport-security': 'max-age=63072000; includeSubDomains; preload',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'permissions-policy': 'camera=(), microphone=()',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
  };
  if (req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'POST') {
    res.writeHead(405, { ...headers, allow: 'GET, HEAD, POST' }).end();
    return;
  }
  if (url.pathname === '/login' && req.method === 'POST') {
    res
      .writeHead(303, {
        ...headers,
        location: '/account',
        'set-cookie': 'session=s3cr3t-session; Path=/; Secure; HttpOnly; SameSite=Strict',
      })
      .end();
    return;
  }
  const text = (type: string, body: string) =>
    res.writeHead(200, { ...headers, 'content-type': type }).end(body);
  if (url.pathname === '/') {
    const q = url.searchParams.get('q') ?? '';
    res.writeHead(200, {
      ...headers,
      'content-type': 'text/html',
      'set-cookie': 'pref=1; Path=/; Secure; HttpOnly; SameSite=Lax',
    });
    res.end(`<!doctype html><html lang="en"><head><title>Good Site</title>
<meta name="description" content="A site built to pass"><meta name="viewport" content="width=device-width, initial-scale=1">
<script src="/app.js"></script><script src="https://cdn.example.net/lib.js" integrity="sha384-abc" crossorigin="anonymous"></script>
</head><body><p>You searched ${escape(q)}</p>${req.headers.cookie?.includes('session=') ? '<p>Signed in</p>' : ''}</body></html>`);
    return;
  }
  if (url.pathname === '/.well-known/security.txt')
    return void text(
      'text/plain',
      `Contact: mailto:security@good.test\nExpires: ${new Date(Date.now() + 180 * 86_400_000).toISOString()}\n`,
    );
  if (url.pathname === '/robots.txt')
    return void text(
      'text/plain',
      'User-agent: *\nDisallow: /admin\nSitemap: https://good.test/sitemap.xml\n',
    );
  if (url.pathname === '/sitemap.xml')
    return void text(
      'application/xml',
      '<?xml version="1.0"?><urlset><url><loc>https://good.test/</loc></url></urlset>',
    );
  res.writeHead(404, { ...headers, 'content-type': 'text/plain' }).end('Not Found');
};

const badHome = (extra = '') =>
  `<html><head><script src="http://cdn.other.net/track.js"></script></head><body>Welcome${extra}</body></html>`;

/** A site built to fail: soft 404s, exposed files, no headers, weak cookies, active flaws. */
export const badSite: Handler = (req, res, body) => {
  const url = new URL(req.url ?? '/', 'https://bad.test');
  const origin = req.headers.origin;
  const cors: Record<string, string> = origin
    ? { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true' }
    : {};
  if (req.method === 'OPTIONS')
    return void res.writeHead(200, { ...cors, allow: 'GET, POST, PUT, DELETE, TRACE, OPTIONS' }).end();
  if (req.method === 'TRACE') {
    const echo = `TRACE ${req.url} HTTP/1.1\r\n${Object.entries(req.headers)
      .map(([k, v]) => `${k}: ${String(v)}`)
      .join('\r\n')}`;
    return void res.writeHead(200, { 'content-type': 'message/http' }).end(echo);
  }
  if (req.method === 'PUT') return void res.writeHead(201).end(body);
  const next =
    url.searchParams.get('next') ?? url.searchParams.get('url') ?? url.searchParams.get('redirect');
  if (next) return void res.writeHead(302, { location: next }).end();
  if (url.pathname === '/.git/config')
    return void res
      .writeHead(200, { 'content-type': 'text/plain' })
      .end('[core]\n\trepositoryformatversion = 0\n\tbare = false\n');
  if (url.pathname === '/.env')
    return void res
      .writeHead(200, { 'content-type': 'text/plain' })
      .end('APP_KEY=base64:abc\nDB_PASSWORD=hunter2\n');
  if (url.pathname === '/uploads/')
    return void res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(
        '<html><head><title>Index of /uploads/</title></head><body><h1>Index of /uploads/</h1><a href="a.pdf">a.pdf</a></body></html>',
      );
  if (url.pathname === '/.well-known/security.txt')
    return void res
      .writeHead(200, { 'content-type': 'text/plain' })
      .end('Contact: mailto:s@bad.test\nExpires: 2020-01-01T00:00:00Z\n');
  // Everything else, even what does not exist: the home page with 200 (a soft 404).
  const q = url.searchParams.get('q') ?? '';
  res
    .writeHead(200, { ...cors, 'content-type': 'text/html', 'set-cookie': 'track=1; Path=/' })
    .end(badHome(q ? ` ${q}` : ''));
};

/** An old server: a plain page over HTTP; its HTTPS side speaks only TLS 1.0. */
export const oldSite: Handler = (_req, res) => {
  res
    .writeHead(200, { 'content-type': 'text/html' })
    .end('<html lang="en"><head><title>Old</title></head><body>old</body></html>');
};

/** Answers everything with a redirect to the cloud metadata address. */
export const metadataRedirect: Handler = (_req, res) => {
  res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
};

/**
 * Two document roots: https:// is clean, http:// (no redirect) still serves the old root with a
 * .env and a .git/config whose remote URL, url and credential sections carry tokens and passwords.
 */
export const splitSite: Handler = (req, res) => {
  const url = new URL(req.url ?? '/', 'https://split.test');
  const text = (status: number, body: string) =>
    res.writeHead(status, { 'content-type': 'text/plain' }).end(body);
  if (req.headers['x-scheme'] === 'http') {
    if (url.pathname === '/.env')
      return void text(200, 'APP_KEY=base64:c3BsaXQ=\nDB_PASSWORD=split-hunter2\n');
    if (url.pathname === '/.git/config')
      return void text(
        200,
        '[core]\n\tbare = false\n[remote "origin"]\n\turl = https://deploy:ghp_splitToken123@git.example/split.git\n' +
          '[url "https://x-access-token:ghs_splitUrl456@github.com/"]\n\tinsteadOf = https://github.com/\n' +
          '[credential "https://ci:splitCredPw789@git.example"]\n\thelper = store\n[credential]\n\tpassword = splitPw000\n',
      );
  }
  if (url.pathname === '/')
    return void res
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<html lang="en"><head><title>Split</title></head><body>split</body></html>');
  text(404, 'Not Found');
};

/**
 * Serves its home page and little else: every request an active test makes (a foreign Origin, a
 * query, a method other than GET, a directory) has its connection dropped unanswered.
 */
export const fragileSite: Handler = (req, res) => {
  const url = new URL(req.url ?? '/', 'http://fragile.test');
  const plainGet = req.method === 'GET' && !req.headers.origin && url.search === '';
  if (!plainGet || /^\/(uploads|images|static|files|backup)\//.test(url.pathname))
    return void req.socket.destroy();
  if (url.pathname === '/')
    return void res
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<html lang="en"><head><title>Fragile</title></head><body>fragile</body></html>');
  res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
};
