import type { Finding } from '@meridian/contracts';
import type { TlsObservation } from '../observations.js';
import { fail, pass } from './finding.js';

const DAY = 86_400_000;

/** Protocol versions and the certificate. `now` is the time of the run. */
export function tlsChecks(obs: TlsObservation, now: Date): Finding[] {
  return [...protocolChecks(obs), ...certificateChecks(obs, now)];
}

/** TLS 1.0 and 1.1 off, TLS 1.2 or 1.3 on, TLS 1.3 offered. */
function protocolChecks(obs: TlsObservation): Finding[] {
  const out: Finding[] = [];
  const offered = (Object.keys(obs.versions) as (keyof TlsObservation['versions'])[]).filter(
    (v) => obs.versions[v],
  );
  const list = offered.join(', ') || 'none';
  for (const [v, label] of [
    ['TLSv1', 'TLS 1.0'],
    ['TLSv1.1', 'TLS 1.1'],
  ] as const) {
    out.push(
      obs.versions[v]
        ? fail(
            `tls.protocol.${v === 'TLSv1' ? 'tls10' : 'tls11'}`,
            'tls',
            `${label} is offered`,
            'medium',
            `offered: ${list}`,
            `Disable ${label} (deprecated by RFC 8996); offer TLS 1.2 and 1.3 only.`,
            -10,
          )
        : pass(
            `tls.protocol.${v === 'TLSv1' ? 'tls10' : 'tls11'}-off`,
            'tls',
            `${label} is not offered`,
            `offered: ${list}`,
          ),
    );
  }
  if (!obs.versions['TLSv1.2'] && !obs.versions['TLSv1.3'])
    out.push(
      fail(
        'tls.protocol.no-modern',
        'tls',
        'Neither TLS 1.2 nor TLS 1.3 is offered',
        'high',
        `offered: ${list}`,
        'Enable TLS 1.2 and TLS 1.3.',
        -20,
      ),
    );
  else
    out.push(
      obs.versions['TLSv1.3']
        ? pass('tls.protocol.tls13', 'tls', 'TLS 1.3 is offered', `offered: ${list}`)
        : fail(
            'tls.protocol.no-tls13',
            'tls',
            'TLS 1.3 is not offered',
            'low',
            `offered: ${list}`,
            'Enable TLS 1.3 on the server.',
          ),
    );
  return out;
}

/** A certificate presented, valid now and for a while, trusted and naming the host. */
function certificateChecks(obs: TlsObservation, now: Date): Finding[] {
  const out: Finding[] = [];
  const cert = obs.certificate;
  if (!cert) {
    out.push(
      fail(
        'tls.certificate.missing',
        'tls',
        'The server presented no certificate',
        'critical',
        obs.chain_error ?? 'no certificate',
        'Install a certificate for this host name from a public certificate authority.',
        -40,
      ),
    );
    return out;
  }
  out.push(validity(cert, now));

  out.push(
    obs.chain_valid
      ? pass('tls.chain.trusted', 'tls', 'The certificate chain is trusted', `issuer: ${cert.issuer}`)
      : fail(
          'tls.chain.untrusted',
          'tls',
          'The certificate chain does not verify',
          'high',
          `${obs.chain_error ?? 'unverified'}; issuer: ${cert.issuer}`,
          'Serve a certificate from a public CA together with its intermediate certificates.',
          -30,
        ),
  );
  out.push(
    obs.hostname_match
      ? pass(
          'tls.hostname.match',
          'tls',
          'The certificate matches the host name',
          `${obs.host} in ${cert.san.join(', ') || cert.subject}`,
        )
      : fail(
          'tls.hostname.mismatch',
          'tls',
          'The certificate does not match the host name',
          'high',
          obs.hostname_error ?? `${obs.host} not in ${cert.san.join(', ')}`,
          `Issue a certificate whose names include ${obs.host}.`,
          -30,
        ),
  );
  return out;
}

type Certificate = NonNullable<TlsObservation['certificate']>;

/** Whether the certificate is valid at `now`, and how long it stays so. */
function validity(cert: Certificate, now: Date): Finding {
  const from = new Date(cert.valid_from);
  const to = new Date(cert.valid_to);
  const days = Math.floor((to.getTime() - now.getTime()) / DAY);
  const dates = `valid ${cert.valid_from} to ${cert.valid_to}`;
  if (now < from)
    return fail(
      'tls.certificate.not-yet-valid',
      'tls',
      'The certificate is not valid yet',
      'critical',
      dates,
      'Check the server clock and install a certificate that is valid now.',
      -40,
    );
  if (days < 0)
    return fail(
      'tls.certificate.expired',
      'tls',
      'The certificate has expired',
      'critical',
      `${dates}; expired ${-days} days ago`,
      'Renew the certificate now and automate renewal (ACME).',
      -40,
    );
  if (days < 14)
    return fail(
      'tls.certificate.expires-soon',
      'tls',
      `The certificate expires in ${days} days`,
      'high',
      dates,
      'Renew the certificate; automate renewal (ACME) so it never gets this close.',
      -20,
    );
  if (days < 30)
    return fail(
      'tls.certificate.expiring',
      'tls',
      `The certificate expires in ${days} days`,
      'medium',
      dates,
      'Renew the certificate soon and check that automatic renewal works.',
      -5,
    );
  return pass('tls.certificate.valid', 'tls', `The certificate is valid for ${days} more days`, dates);
}
