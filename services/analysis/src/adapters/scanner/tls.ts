import tls, { type PeerCertificate, type SecureVersion } from 'node:tls';
import type { TlsObservation, TlsVersion } from '../../domain/observations.js';
import { checkedAddress, pinnedLookup, type ScannerOptions } from './http.js';

export const TLS_VERSIONS: TlsVersion[] = ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'];

interface Handshake {
  protocol: string | null;
  cert: PeerCertificate | null;
  authorized: boolean;
  authorizationError: string | null;
}

/**
 * One handshake pinned to the checked address. Old versions need OpenSSL's security level 0 to
 * be offered at all; the probe only asks whether the server accepts them.
 */
function handshake(
  options: ScannerOptions,
  host: string,
  address: string,
  port: number,
  versions?: { min: SecureVersion; max: SecureVersion },
): Promise<Handshake> {
  return new Promise((resolve, reject) => {
    const old = versions && (versions.min === 'TLSv1' || versions.min === 'TLSv1.1');
    const socket = tls.connect({
      host,
      port,
      servername: host,
      lookup: pinnedLookup(address),
      rejectUnauthorized: false,
      ...(options.ca ? { ca: options.ca } : {}),
      ...(versions ? { minVersion: versions.min, maxVersion: versions.max } : {}),
      ...(old ? { ciphers: 'DEFAULT:@SECLEVEL=0' } : {}),
      timeout: options.timeoutMs,
    });
    const timer = setTimeout(
      () => socket.destroy(new Error(`no handshake within ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      const cert = socket.getPeerCertificate(true);
      resolve({
        protocol: socket.getProtocol(),
        cert: cert && Object.keys(cert).length > 0 ? cert : null,
        authorized: socket.authorized,
        authorizationError: socket.authorizationError ? String(socket.authorizationError) : null,
      });
      socket.destroy();
    });
    socket.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.once('timeout', () => socket.destroy(new Error(`no handshake within ${options.timeoutMs} ms`)));
  });
}

/** Which protocol versions the server accepts, and what its certificate says. */
export async function probeTls(options: ScannerOptions, host: string): Promise<TlsObservation> {
  const address = await checkedAddress(options, host);
  const port = options.httpsPort;
  const main = await handshake(options, host, address, port).catch(() =>
    handshake(options, host, address, port, { min: 'TLSv1', max: 'TLSv1.3' }),
  );
  const versions = {} as Record<TlsVersion, boolean>;
  for (const v of TLS_VERSIONS) {
    versions[v] = await handshake(options, host, address, port, { min: v, max: v }).then(
      (h) => h.protocol === v,
      () => false,
    );
  }
  const cert = main.cert;
  const identityError = cert ? tls.checkServerIdentity(host, cert) : new Error('no certificate');
  return {
    host,
    protocol: main.protocol,
    versions,
    certificate: cert
      ? {
          subject: String(cert.subject?.CN ?? ''),
          issuer: String(cert.issuer?.CN ?? cert.issuer?.O ?? ''),
          valid_from: new Date(cert.valid_from).toISOString(),
          valid_to: new Date(cert.valid_to).toISOString(),
          san: (cert.subjectaltname ?? '')
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean),
        }
      : null,
    chain_valid: main.authorized,
    chain_error: main.authorizationError,
    hostname_match: identityError === undefined,
    hostname_error: identityError?.message ?? null,
  };
}
