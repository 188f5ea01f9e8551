import { describe, expect, it } from '@jest/globals';
import { OpenStreams } from '../../src/domain/trace-streams.js';

describe('the open trace streams of a replica', () => {
  it('refuses a stream past the cap of its run, then past the cap of its account', () => {
    const open = new OpenStreams({ perRun: 2, perAccount: 3 });
    expect([open.take('a', 'r1'), open.take('a', 'r1'), open.take('a', 'r1')]).toEqual([null, null, 'run']);
    expect([open.take('a', 'r2'), open.take('a', 'r3')]).toEqual([null, 'account']);
    expect(open.take('b', 'r3')).toBeNull();
    expect(open.open()).toBe(4);
  });

  it('counts nothing for a refused stream, and frees a place when a stream is given back', () => {
    const open = new OpenStreams({ perRun: 1, perAccount: 10 });
    expect(open.take('a', 'r1')).toBeNull();
    expect(open.take('a', 'r1')).toBe('run');
    expect(open.open()).toBe(1);
    open.give('a', 'r1');
    expect(open.open()).toBe(0);
    expect(open.take('a', 'r1')).toBeNull();
  });
});
