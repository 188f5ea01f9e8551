import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import type { Finding, Report, Subscription } from '@meridian/contracts';
import { changesSince } from '../../src/domain/changes.js';
import { detectProvider } from '../../src/domain/dns-providers.js';
import { covers, entitlements } from '../../src/domain/entitlement.js';
import { normalizeHostname } from '@meridian/contracts';
import { WEEK_MS, nextDue, rescanWeek } from '../../src/domain/rescan.js';
import { open, parseKey, seal } from '@meridian/runtime';
import { proves, verificationRecord } from '../../src/domain/verification.js';

const NOW = new Date('2026-11-25T12:00:00Z');
const sub = (tier: Subscription['tier'], active = true): Subscription => ({
  tier,
  active,
  granted_at: '2026-11-01T00:00:00Z',
  expires_at: '2026-12-01T00:00:00Z',
});

describe('hostnames', () => {
  it('makes a bare lower-case ASCII hostname, IDN labels in punycode', () => {
    expect(normalizeHostname(' Shop.Example.COM. ')).toEqual({ ok: true, value: 'shop.example.com' });
    expect(normalizeHostname('bücher.example')).toEqual({ ok: true, value: 'xn--bcher-kva.example' });
    expect(normalizeHostname('xn--bcher-kva.example')).toEqual({ ok: true, value: 'xn--bcher-kva.example' });
  });

  it.each([
    ['https://a.example', /scheme/],
    ['a.example:443', /port/],
    ['a.example/x', /path/],
    ['a.example?x=1', /path or query/],
    ['me@a.example', /user/],
    ['*.a.example', /wildcard/],
    ['192.168.1.1', /IP address/],
    ['[::1]', /port/],
    ['localhost', /two labels/],
    ['a_b.example', /labels/],
    ['-a.example', /labels/],
    ['a.123', /not a valid hostname|numeric/],
    ['', /empty/],
    [`${'a'.repeat(64)}.example`, /labels/],
  ])('refuses %j and says why', (input, why) => {
    const result = normalizeHostname(input);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.detail).toMatch(why);
  });
});

describe('DNS verification', () => {
  it('publishes _meridian-verify.<domain> with meridian-verify=<token> and accepts only that exact value', () => {
    const record = verificationRecord('a.example', 'tok');
    expect(record).toEqual({ type: 'TXT', name: '_meridian-verify.a.example', value: 'meridian-verify=tok' });
    expect(proves([['v=spf1 -all'], ['meridian-verify=tok']], 'tok')).toBe(true);
    expect(proves([['meridian-veri', 'fy=tok']], 'tok')).toBe(true);
    expect(proves([['meridian-verify=tok2']], 'tok')).toBe(false);
    expect(proves([], 'tok')).toBe(false);
  });
});

describe('entitlement', () => {
  it('lets a subscription cover its tier and the lower ones, not the higher, and not when inactive or expired', () => {
    expect(covers(sub('audit_secure'), 'audit_base', NOW)).toBe(true);
    expect(covers(sub('audit_secure'), 'audit_secure', NOW)).toBe(true);
    expect(covers(sub('audit_secure'), 'audit_review', NOW)).toBe(false);
    expect(covers(sub('audit_review', false), 'audit_base', NOW)).toBe(false);
    expect(covers(sub('audit_review'), 'audit_base', new Date('2026-12-02T00:00:00Z'))).toBe(false);
    expect(covers(null, 'audit_base', NOW)).toBe(false);
  });

  it("charges billing's price unless covered, and says which tiers need an authorization", () => {
    const prices = new Map<string, number | null>([
      ['run:audit_base', 9],
      ['run:audit_secure', 29],
      ['run:audit_review', null],
    ]);
    expect(entitlements(sub('audit_base'), prices, NOW)).toEqual([
      {
        tier: 'audit_base',
        price_atomic: 9,
        covered_by_subscription: true,
        charge_atomic: 0,
        requires_authorization: false,
      },
      {
        tier: 'audit_secure',
        price_atomic: 29,
        covered_by_subscription: false,
        charge_atomic: 29,
        requires_authorization: true,
      },
      {
        tier: 'audit_review',
        price_atomic: null,
        covered_by_subscription: false,
        charge_atomic: null,
        requires_authorization: true,
      },
    ]);
  });
});

describe('DNS providers', () => {
  it('recognises common hosts by their name servers', () => {
    expect(detectProvider(['kim.ns.cloudflare.com.', 'bob.ns.cloudflare.com'])?.id).toBe('cloudflare');
    expect(detectProvider(['ns-1536.awsdns-00.co.uk', 'ns-0.awsdns-00.com'])?.id).toBe('route53');
    expect(detectProvider(['ns-cloud-a1.googledomains.com'])?.id).toBe('google');
    expect(detectProvider(['ns1-01.azure-dns.com'])?.id).toBe('azure');
    expect(detectProvider(['ns01.domaincontrol.com'])?.id).toBe('godaddy');
    expect(detectProvider(['dns1.registrar-servers.com'])?.id).toBe('namecheap');
    expect(detectProvider(['dns10.ovh.net'])?.id).toBe('ovh');
    expect(detectProvider(['ns-12-a.gandi.net'])?.id).toBe('gandi');
    expect(detectProvider(['ns1.digitalocean.com'])?.id).toBe('digitalocean');
    expect(detectProvider(['hydrogen.ns.hetzner.com'])?.id).toBe('hetzner');
    expect(detectProvider(['ns1.example.net'])).toBeUndefined();
    expect(detectProvider(['evilcloudflare.com'])).toBeUndefined();
  });
});

describe('changes since the previous report', () => {
  const f = (id: string, passed = false): Finding => ({
    id,
    category: 'headers',
    title: id,
    severity: 'low',
    outcome: passed ? 'passed' : 'problem',
    passed,
    evidence: '',
    remediation: '',
    score_modifier: 0,
  });
  it('lists problems that appeared and problems that went away, ignoring passed checks', () => {
    const previous = { run_id: 'run-1', findings: [f('a'), f('b'), f('ok', true)] } as Report;
    expect(changesSince(previous, [f('b'), f('c'), f('a', true)])).toEqual({
      previous_run_id: 'run-1',
      new: ['c'],
      resolved: ['a'],
    });
  });
  it('counts a check that did not run as neither new nor resolved, nor a problem of a stage that delivered nothing', () => {
    const active = (id: string, outcome: Finding['outcome']): Finding => ({
      ...f(id),
      category: 'active',
      outcome,
      passed: false,
    });
    const previous = {
      run_id: 'run-1',
      findings: [f('a'), active('active.open-redirect', 'problem')],
    } as Report;
    expect(changesSince(previous, [active('active.not-authorized', 'not_run')])).toEqual({
      previous_run_id: 'run-1',
      new: [],
      resolved: ['a'],
    });
  });
});

describe('weekly re-scan', () => {
  it('names a week by its due time and skips missed weeks instead of catching up', () => {
    const due = new Date('2026-11-01T10:00:00Z');
    expect(rescanWeek(due)).toBe('2026-11-01T10:00:00');
    expect(nextDue(due, new Date('2026-11-02T00:00:00Z')).getTime()).toBe(due.getTime() + WEEK_MS);
    expect(nextDue(due, new Date('2026-11-25T00:00:00Z')).toISOString()).toBe('2026-11-29T10:00:00.000Z');
  });
});

describe('credential sealing', () => {
  it('opens only with the key and the context it was sealed with, and a fresh IV each time', () => {
    const key = randomBytes(32);
    const a = seal(key, 'secret', 'acct:cred');
    expect(a).not.toContain('secret');
    expect(seal(key, 'secret', 'acct:cred')).not.toBe(a);
    expect(open(key, a, 'acct:cred')).toBe('secret');
    expect(() => open(key, a, 'other:cred')).toThrow();
    expect(() => open(randomBytes(32), a, 'acct:cred')).toThrow();
    expect(parseKey(key.toString('hex'), 'CREDENTIALS_KEY')).toEqual(key);
    expect(() => parseKey('short', 'CREDENTIALS_KEY')).toThrow(/CREDENTIALS_KEY must be 32 bytes/);
  });
});
