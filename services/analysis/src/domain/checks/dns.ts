import type { Finding } from '@meridian/contracts';
import type { DnsObservation, MailObservation } from '../observations.js';
import { fail, notRun, pass, quote } from './finding.js';

/** CAA and DNSSEC of the domain. */
export function dnsChecks(obs: DnsObservation): Finding[] {
  const out: Finding[] = [];
  const issuers = obs.caa.filter((r) => r.tag === 'issue' || r.tag === 'issuewild');
  out.push(
    issuers.length > 0
      ? pass(
          'dns.caa.present',
          'dns',
          'CAA records name the certificate authorities allowed to issue',
          obs.caa.map((r) => `${r.critical ? 128 : 0} ${r.tag} "${r.value}"`).join('; '),
        )
      : fail(
          'dns.caa.missing',
          'dns',
          'No CAA record restricts who may issue certificates',
          'low',
          'no CAA issue record',
          'Publish a CAA record naming your certificate authority, e.g. `0 issue "letsencrypt.org"`.',
        ),
  );
  if (obs.dnssec === 'validated')
    out.push(
      pass(
        'dns.dnssec.validated',
        'dns',
        'DNSSEC: the zone is signed and the resolver validated it',
        'DNSKEY answered with the AD flag set',
      ),
    );
  else if (obs.dnssec === 'signed')
    out.push(
      pass(
        'dns.dnssec.signed',
        'dns',
        'DNSSEC: the zone publishes DNSKEY records',
        'DNSKEY present; the resolver did not set the AD flag',
      ),
    );
  else if (obs.dnssec === 'unsigned')
    out.push(
      fail(
        'dns.dnssec.unsigned',
        'dns',
        'DNSSEC is not enabled',
        'low',
        'no DNSKEY record',
        'Enable DNSSEC signing at your DNS provider and publish the DS record at your registrar.',
      ),
    );
  else
    out.push(
      notRun(
        'dns.dnssec.unknown',
        'dns',
        'DNSSEC could not be determined',
        'the resolver gave no usable DNSKEY answer',
        'Nothing to change on the site; the next run asks again.',
      ),
    );
  return out;
}

/** SPF (with its lookup limit), DMARC and MX. */
export function mailChecks(obs: MailObservation): Finding[] {
  return [...spfChecks(obs), ...dmarcChecks(obs), mxCheck(obs)];
}

/** One SPF record that rejects unlisted senders, within its lookup limits. */
function spfChecks(obs: MailObservation): Finding[] {
  const out: Finding[] = [];
  const { spf } = obs;
  if (spf.record === null) {
    out.push(
      fail(
        'mail.spf.missing',
        'mail',
        'No SPF record',
        'medium',
        'no TXT record starting with v=spf1',
        obs.mx.length > 0
          ? 'Publish a TXT record `v=spf1 mx -all` (add the senders you use).'
          : 'This domain sends no mail: publish `v=spf1 -all` so nobody can send as it.',
        -5,
      ),
    );
  } else if (spf.records > 1 || spf.lookups > 10) {
    out.push(
      fail(
        'mail.spf.permerror',
        'mail',
        'SPF fails with a permanent error',
        'medium',
        `${quote(spf.record)}; ${spf.errors.join('; ')}`,
        'Publish exactly one v=spf1 record and keep it within 10 DNS lookups: flatten includes or drop unused senders.',
        -5,
      ),
    );
  } else if (spf.all === '+all' || spf.all === '?all' || spf.all === null) {
    out.push(
      fail(
        'mail.spf.permissive',
        'mail',
        'SPF does not reject unlisted senders',
        spf.all === '+all' ? 'high' : 'medium',
        `${quote(spf.record)} (ends with ${spf.all ?? 'no all mechanism'})`,
        'End the record with `-all` (or `~all` while testing) so receivers reject other senders.',
        spf.all === '+all' ? -10 : -5,
      ),
    );
  } else {
    out.push(
      pass(
        'mail.spf.ok',
        'mail',
        `SPF is published and ends with ${spf.all}`,
        `${quote(spf.record)} (${spf.lookups} DNS lookups)`,
      ),
    );
  }
  if (spf.void_lookups > 2)
    out.push(
      fail(
        'mail.spf.void-lookups',
        'mail',
        'SPF includes names that do not exist',
        'low',
        spf.errors.join('; '),
        'Remove includes of names that publish no SPF record.',
      ),
    );
  return out;
}

/** One DMARC record with a policy that quarantines or rejects. */
function dmarcChecks(obs: MailObservation): Finding[] {
  const out: Finding[] = [];
  const dmarc = obs.dmarc[0];
  if (!dmarc) {
    out.push(
      fail(
        'mail.dmarc.missing',
        'mail',
        'No DMARC policy',
        'medium',
        'no TXT record at _dmarc starting with v=DMARC1',
        'Publish `_dmarc` TXT `v=DMARC1; p=quarantine; rua=mailto:dmarc@<your domain>`, then move to p=reject.',
        -5,
      ),
    );
  } else {
    const policy = /(?:^|;)\s*p\s*=\s*([a-z]+)/i.exec(dmarc)?.[1]?.toLowerCase() ?? '';
    if (obs.dmarc.length > 1)
      out.push(
        fail(
          'mail.dmarc.multiple',
          'mail',
          'More than one DMARC record',
          'medium',
          obs.dmarc.join(' | '),
          'Keep a single v=DMARC1 record; receivers ignore DMARC when there are several.',
          -5,
        ),
      );
    else if (policy === 'reject' || policy === 'quarantine')
      out.push(pass('mail.dmarc.enforced', 'mail', `DMARC policy is ${policy}`, quote(dmarc)));
    else
      out.push(
        fail(
          'mail.dmarc.not-enforced',
          'mail',
          policy === 'none' ? 'DMARC policy is none (monitoring only)' : 'DMARC record has no valid policy',
          'low',
          quote(dmarc),
          'Once reports show your senders pass, set p=quarantine and then p=reject.',
        ),
      );
  }
  return out;
}

/** The MX records, or none: a domain may receive no mail. */
function mxCheck(obs: MailObservation): Finding {
  return obs.mx.length > 0
    ? pass(
        'mail.mx.present',
        'mail',
        'MX records are published',
        obs.mx
          .slice()
          .sort((a, b) => a.priority - b.priority)
          .map((m) => `${m.priority} ${m.exchange}`)
          .join(', '),
      )
    : {
        ...pass('mail.mx.none', 'mail', 'No MX record: the domain receives no mail', 'no MX record'),
        severity: 'info',
      };
}
