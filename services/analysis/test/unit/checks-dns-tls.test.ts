// The DNS, mail and TLS checks as pure rules over observations: SPF counting, DMARC, CAA, DNSSEC,
// protocol versions and certificates.
import { describe, expect, it } from '@jest/globals';
import { evaluateSpf, parseSpfTerms } from '../../src/adapters/scanner/spf.js';
import { dnsChecks, mailChecks } from '../../src/domain/checks/dns.js';
import { tlsChecks } from '../../src/domain/checks/tls.js';
import type { MailObservation, TlsObservation } from '../../src/domain/observations.js';
import { byId, ids, now } from './support/findings.js';

describe('SPF evaluation', () => {
  const zone = (records: Record<string, string[]>) => async (name: string) => records[name] ?? [];

  it('parses qualifiers, mechanisms and modifiers', () => {
    expect(parseSpfTerms('v=spf1 ip4:1.2.3.4 include:_spf.x.com ~all redirect=y.com')).toEqual([
      { qualifier: '+', name: 'ip4', arg: '1.2.3.4', modifier: false },
      { qualifier: '+', name: 'include', arg: '_spf.x.com', modifier: false },
      { qualifier: '~', name: 'all', arg: null, modifier: false },
      { qualifier: '', name: 'redirect', arg: 'y.com', modifier: true },
    ]);
  });

  it('counts lookups through nested includes', async () => {
    const spf = await evaluateSpf(
      'a.com',
      zone({
        'a.com': ['v=spf1 include:b.com mx a -all'],
        'b.com': ['v=spf1 include:c.com ip4:1.1.1.1 ~all'],
        'c.com': ['v=spf1 exists:%{i}.x.com ptr -all'],
      }),
    );
    expect(spf).toMatchObject({ lookups: 6, all: '-all', errors: [] });
  });

  it('reports more than ten lookups as a permerror', async () => {
    const many = Array.from({ length: 11 }, (_, i) => `include:i${i}.com`).join(' ');
    const records: Record<string, string[]> = { 'a.com': [`v=spf1 ${many} -all`] };
    for (let i = 0; i < 11; i++) records[`i${i}.com`] = ['v=spf1 ip4:10.0.0.1 -all'];
    const spf = await evaluateSpf('a.com', zone(records));
    expect(spf.lookups).toBe(11);
    const found = mailChecks({ spf, dmarc: [], mx: [] });
    expect(byId(found, 'mail.spf.permerror')?.evidence).toContain('more than the limit of 10');
  });

  it('follows redirect= for the closing policy and counts it', async () => {
    const spf = await evaluateSpf(
      'a.com',
      zone({ 'a.com': ['v=spf1 redirect=_spf.a.com'], '_spf.a.com': ['v=spf1 ip4:1.2.3.4 -all'] }),
    );
    expect(spf).toMatchObject({ lookups: 1, all: '-all' });
  });

  it('counts includes of names without SPF as void lookups', async () => {
    const spf = await evaluateSpf(
      'a.com',
      zone({ 'a.com': ['v=spf1 include:x.com include:y.com include:z.com -all'] }),
    );
    expect(spf.void_lookups).toBe(3);
    expect(ids(mailChecks({ spf, dmarc: [], mx: [] }))).toContain('mail.spf.void-lookups');
  });
});

describe('mail and DNS checks', () => {
  const spf = (record: string | null, all: string | null): MailObservation['spf'] => ({
    record,
    records: record ? 1 : 0,
    lookups: 0,
    void_lookups: 0,
    all,
    errors: [],
  });
  it('wants SPF ending in -all or ~all and an enforced DMARC policy', () => {
    expect(
      ids(
        mailChecks({
          spf: spf('v=spf1 -all', '-all'),
          dmarc: ['v=DMARC1; p=reject'],
          mx: [{ exchange: 'mx.a.com', priority: 10 }],
        }),
      ),
    ).toEqual(['mail.spf.ok', 'mail.dmarc.enforced', 'mail.mx.present']);
  });
  it('flags a missing SPF, +all, a missing DMARC and p=none', () => {
    expect(
      byId(mailChecks({ spf: spf(null, null), dmarc: [], mx: [] }), 'mail.spf.missing')?.score_modifier,
    ).toBe(-5);
    expect(
      byId(mailChecks({ spf: spf('v=spf1 +all', '+all'), dmarc: [], mx: [] }), 'mail.spf.permissive')
        ?.severity,
    ).toBe('high');
    expect(ids(mailChecks({ spf: spf(null, null), dmarc: [], mx: [] }))).toContain('mail.dmarc.missing');
    expect(ids(mailChecks({ spf: spf(null, null), dmarc: ['v=DMARC1; p=none'], mx: [] }))).toContain(
      'mail.dmarc.not-enforced',
    );
  });
  it('reports CAA and the DNSSEC state', () => {
    expect(
      ids(
        dnsChecks({
          addresses: [],
          caa: [{ tag: 'issue', value: 'letsencrypt.org', critical: false }],
          dnssec: 'validated',
        }),
      ),
    ).toEqual(['dns.caa.present', 'dns.dnssec.validated']);
    expect(ids(dnsChecks({ addresses: [], caa: [], dnssec: 'unsigned' }))).toEqual([
      'dns.caa.missing',
      'dns.dnssec.unsigned',
    ]);
    expect(ids(dnsChecks({ addresses: [], caa: [], dnssec: 'unknown' }))).toContain('dns.dnssec.unknown');
  });
});

describe('TLS checks', () => {
  const base: TlsObservation = {
    host: 'example.com',
    protocol: 'TLSv1.3',
    versions: { TLSv1: false, 'TLSv1.1': false, 'TLSv1.2': true, 'TLSv1.3': true },
    certificate: {
      subject: 'example.com',
      issuer: 'CA',
      valid_from: '2026-01-01T00:00:00Z',
      valid_to: '2026-12-01T00:00:00Z',
      san: ['DNS:example.com'],
    },
    chain_valid: true,
    chain_error: null,
    hostname_match: true,
    hostname_error: null,
  };
  it('passes a modern configuration', () => {
    expect(tlsChecks(base, now).every((f) => f.passed)).toBe(true);
  });
  it('flags TLS 1.0 and 1.1', () => {
    const found = tlsChecks({ ...base, versions: { ...base.versions, TLSv1: true, 'TLSv1.1': true } }, now);
    expect(ids(found)).toEqual(expect.arrayContaining(['tls.protocol.tls10', 'tls.protocol.tls11']));
  });
  it('judges expiry by days left', () => {
    const ending = (valid_to: string) =>
      ids(tlsChecks({ ...base, certificate: { ...base.certificate!, valid_to } }, now));
    expect(ending('2026-05-01T00:00:00Z')).toContain('tls.certificate.expired');
    expect(ending('2026-06-10T00:00:00Z')).toContain('tls.certificate.expires-soon');
    expect(ending('2026-06-20T00:00:00Z')).toContain('tls.certificate.expiring');
    expect(
      ids(
        tlsChecks(
          { ...base, certificate: { ...base.certificate!, valid_from: '2026-07-01T00:00:00Z' } },
          now,
        ),
      ),
    ).toContain('tls.certificate.not-yet-valid');
  });
  it('flags an untrusted chain and a name mismatch', () => {
    const found = tlsChecks(
      {
        ...base,
        chain_valid: false,
        chain_error: 'SELF_SIGNED',
        hostname_match: false,
        hostname_error: 'mismatch',
      },
      now,
    );
    expect(ids(found)).toEqual(expect.arrayContaining(['tls.chain.untrusted', 'tls.hostname.mismatch']));
  });
});
