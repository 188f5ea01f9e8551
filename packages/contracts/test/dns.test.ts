import { describe, expect, it } from '@jest/globals';
import { isDnsNameAbsent } from '../src/dns.js';

describe('isDnsNameAbsent', () => {
  it('is true of every spelling of "no such name or record" that node:dns gives', () => {
    for (const code of ['ENODATA', 'ENOTFOUND', 'ENONAME', 'NXDOMAIN'])
      expect(isDnsNameAbsent(Object.assign(new Error('query'), { code }))).toBe(true);
  });

  it('is false of a resolver that could not be asked, and of what is no error code', () => {
    for (const code of ['ECONNREFUSED', 'ETIMEOUT', 'ESERVFAIL', 'EAI_AGAIN'])
      expect(isDnsNameAbsent(Object.assign(new Error('query'), { code }))).toBe(false);
    for (const err of [undefined, null, 'ENOTFOUND', { code: 3 }]) expect(isDnsNameAbsent(err)).toBe(false);
  });
});
