import { describe, expect, it } from '@jest/globals';
import { mayTryElsewhere, Replicas, replicaUrls } from '../../src/domain/replicas.js';
import { parseConfig } from '../../src/config.js';

const three = () => new Replicas(replicaUrls('http://a:1, http://b:2,http://c:3'), 1000);

describe('replicas of one service', () => {
  it('reads one URL or several, comma-separated, and the config refuses anything else', () => {
    expect(replicaUrls('http://a:1').map((u) => u.host)).toEqual(['a:1']);
    expect(replicaUrls('http://a:1, http://b:2,').map((u) => u.host)).toEqual(['a:1', 'b:2']);
    const secret = 'x'.repeat(32);
    expect(parseConfig({ INTERNAL_AUTH_SECRET: secret, DATA_URL: 'http://a:1,http://b:2' }).DATA_URL).toBe(
      'http://a:1,http://b:2',
    );
    expect(() => parseConfig({ INTERNAL_AUTH_SECRET: secret, DATA_URL: 'http://a:1,nope' })).toThrow(
      /DATA_URL/,
    );
    expect(() => parseConfig({ INTERNAL_AUTH_SECRET: secret, ANALYSIS_URL: ' , ' })).toThrow(/ANALYSIS_URL/);
  });

  it('takes them in turn', () => {
    const r = three();
    const picks = Array.from({ length: 6 }, () => r.pick(new Set(), 0));
    expect(picks).toEqual([0, 1, 2, 0, 1, 2]);
  });

  it('passes over one that refused a connection while it rests, then tries it again', () => {
    const r = three();
    r.refused(1, 0);
    expect(Array.from({ length: 4 }, () => r.pick(new Set(), 500))).toEqual([0, 2, 0, 2]);
    expect(Array.from({ length: 3 }, () => r.pick(new Set(), 1000))).toEqual([0, 1, 2]);
  });

  it('gives one not yet tried, resting ones last, and none once every one was tried', () => {
    const r = three();
    r.refused(0, 0);
    r.refused(1, 0);
    expect(r.pick(new Set([2]), 10)).toBe(0);
    expect(r.pick(new Set([0, 2]), 10)).toBe(1);
    expect(r.pick(new Set([0, 1, 2]), 10)).toBeUndefined();
  });

  it('sends a request to another replica only when this one cannot have acted on it', () => {
    expect(mayTryElsewhere('ECONNREFUSED', 'POST')).toBe(true);
    expect(mayTryElsewhere('ECONNRESET', 'GET')).toBe(true);
    expect(mayTryElsewhere('ECONNRESET', 'POST')).toBe(false);
    expect(mayTryElsewhere('ETIMEDOUT', 'GET')).toBe(false);
    expect(mayTryElsewhere('ENOTFOUND', 'POST')).toBe(true);
    expect(mayTryElsewhere('ENODATA', 'POST')).toBe(true);
    expect(mayTryElsewhere(undefined, 'GET')).toBe(false);
  });
});
