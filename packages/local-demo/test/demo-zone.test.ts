import { mkdtempSync, rmSync } from 'node:fs';
import { Resolver } from 'node:dns/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DEMO_HOST, publishTxt, startDemoResolver, type BoundDns } from '../src/index.js';

describe('the demo resolver', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'meridian-demo-'));
  let resolver: BoundDns;
  const ask = new Resolver({ timeout: 2000, tries: 1 });

  beforeAll(async () => {
    resolver = await startDemoResolver(dataDir);
    ask.setServers([resolver.address]);
  });
  afterAll(async () => {
    await resolver.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers the demo site on loopback, with its mail records', async () => {
    expect(await ask.resolve4(DEMO_HOST)).toEqual(['127.0.0.1']);
    expect(await ask.resolveMx(DEMO_HOST)).toEqual([
      expect.objectContaining({ exchange: `mail.${DEMO_HOST}`, priority: 10 }),
    ]);
    expect(await ask.resolveTxt(`_dmarc.${DEMO_HOST}`)).toEqual([['v=DMARC1; p=none']]);
  });

  it('answers a TXT record once demo:txt published it, and not before', async () => {
    const name = `_meridian-verify.${DEMO_HOST}`;
    await expect(ask.resolveTxt(name)).rejects.toMatchObject({ code: 'ENOTFOUND' });
    publishTxt(dataDir, name, 'meridian-verify=abc');
    expect(await ask.resolveTxt(name)).toEqual([['meridian-verify=abc']]);
  });

  it('refuses every name outside the demo zone: no lookup leaves the machine', async () => {
    await expect(ask.resolve4('example.com')).rejects.toMatchObject({ code: 'EREFUSED' });
    await expect(ask.resolveTxt('_meridian-verify.example.com')).rejects.toMatchObject({ code: 'EREFUSED' });
  });

  it('publishes nothing outside the demo site or with a value no TXT record holds', () => {
    expect(() => publishTxt(dataDir, '_meridian-verify.example.com', 'x')).toThrow(/not in the demo zone/);
    expect(() => publishTxt(dataDir, `_x.${DEMO_HOST}`, 'a\nb')).toThrow(/printable/);
  });
});
