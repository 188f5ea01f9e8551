import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { generate } from 'otplib';
import { entitlementsOf, planChangeApplies } from '../../src/domain/account.js';
import { open, seal } from '@meridian/runtime';
import { lastSeenIsStale, sessionIsLive } from '../../src/domain/session.js';
import {
  acceptedStep,
  newRecoveryCodes,
  newTotpSecret,
  normaliseRecoveryCode,
  otpauthUri,
  RECOVERY_ALPHABET,
} from '../../src/domain/totp.js';

const t0 = new Date('2026-01-01T00:00:00Z');
const at = (s: number) => new Date(t0.getTime() + s * 1000);

describe('session lifetime', () => {
  const session = { createdAt: t0, lastSeenAt: t0, expiresAt: at(1000), revokedAt: null };
  it('ends after the idle time, at the absolute expiry, or at revocation', () => {
    expect(sessionIsLive(session, 100, at(99))).toBe(true);
    expect(sessionIsLive(session, 100, at(100))).toBe(false);
    expect(sessionIsLive({ ...session, lastSeenAt: at(950) }, 100, at(1000))).toBe(false);
    expect(sessionIsLive({ ...session, revokedAt: t0 }, 100, at(1))).toBe(false);
  });
  it('writes last use at most once a minute', () => {
    expect(lastSeenIsStale(t0, at(59))).toBe(false);
    expect(lastSeenIsStale(t0, at(60))).toBe(true);
  });
});

describe('TOTP', () => {
  it('accepts the current code, one step of drift, and refuses the same step twice', async () => {
    const secret = newTotpSecret();
    const now = Date.UTC(2026, 0, 1, 0, 0, 15);
    const step = Math.floor(now / 30_000);
    const code = await generate({ secret, epoch: now / 1000 });
    expect(await acceptedStep(secret, code, null, now)).toBe(step);
    expect(await acceptedStep(secret, code, step, now)).toBeUndefined();
    const previous = await generate({ secret, epoch: now / 1000 - 30 });
    expect(await acceptedStep(secret, previous, null, now)).toBe(step - 1);
    const old = await generate({ secret, epoch: now / 1000 - 90 });
    expect(await acceptedStep(secret, old, null, now)).toBeUndefined();
  });

  it('writes an otpauth URI for SHA-1, 6 digits, 30 s', () => {
    const uri = otpauthUri('JBSWY3DPEHPK3PXP', 'Meridian', 'a@example.com');
    expect(uri).toMatch(/^otpauth:\/\/totp\//);
    expect(uri).toContain('secret=JBSWY3DPEHPK3PXP');
  });

  it('makes ten distinct recovery codes that normalise as typed', () => {
    const codes = newRecoveryCodes();
    expect(new Set(codes).size).toBe(10);
    expect(normaliseRecoveryCode(` ${codes[0]!.toUpperCase()} `)).toBe(codes[0]!.replaceAll('-', ''));
  });

  it('draws recovery-code characters uniformly from the alphabet', () => {
    // A byte modulo 31 gives the first 8 characters 9/256 each and the other 23 8/256: 12.5% more.
    const counts = new Map<string, number>();
    for (let i = 0; i < 2000; i++)
      for (const c of newRecoveryCodes().join('').replaceAll('-', ''))
        counts.set(c, (counts.get(c) ?? 0) + 1);
    expect([...counts.keys()].sort().join('')).toBe([...RECOVERY_ALPHABET].sort().join(''));
    const mean = (chars: string) => [...chars].reduce((n, c) => n + counts.get(c)!, 0) / chars.length;
    const ratio = mean(RECOVERY_ALPHABET.slice(0, 8)) / mean(RECOVERY_ALPHABET.slice(8));
    // 320 000 characters: the ratio of the two means stays within 3% of 1 (about 10 standard deviations).
    expect(Math.abs(ratio - 1)).toBeLessThan(0.03);
  });

  it('seals the secret bound to its account', () => {
    const key = randomBytes(32);
    const sealed = seal(key, 'JBSWY3DPEHPK3PXP', 'totp:a');
    expect(sealed).not.toContain('JBSWY3DPEHPK3PXP');
    expect(open(key, sealed, 'totp:a')).toBe('JBSWY3DPEHPK3PXP');
    expect(() => open(key, sealed, 'totp:b')).toThrow();
    expect(() => open(randomBytes(32), sealed, 'totp:a')).toThrow();
  });
});

describe('plans', () => {
  it('entitle the plan and the ones below it', () => {
    expect(entitlementsOf('pro')).toEqual({
      plan: 'pro',
      metric_plans: ['free', 'basic', 'pro'],
      rate_limit_per_minute: 300,
      max_live_keys: 10,
    });
  });
  it('change only for a newer announcement', () => {
    expect(planChangeApplies({ plan: 'free', changedAt: null }, { plan: 'pro', changedAt: t0 })).toBe(true);
    expect(planChangeApplies({ plan: 'pro', changedAt: at(10) }, { plan: 'free', changedAt: t0 })).toBe(
      false,
    );
  });
});
