import { describe, expect, it } from '@jest/globals';
import { OpenStreams } from '../../src/domain/trace-streams.js';

describe('the open trace streams of a replica', () => {
  it('refuses a stream past the cap of its run, then past the cap of its account', () => {
    const open = new OpenStreams({ perRun: 2, perAccount: 3, total: 100 });
    expect([open.take('a', 'r1'), open.take('a', 'r1'), open.take('a', 'r1')]).toEqual([null, null, 'run']);
    expect([open.take('a', 'r2'), open.take('a', 'r3')]).toEqual([null, 'account']);
    expect(open.take('b', 'r3')).toBeNull();
    expect(open.open()).toBe(4);
  });

  it('counts nothing for a refused stream, and frees a place when a stream is given back', () => {
    const open = new OpenStreams({ perRun: 1, perAccount: 10, total: 100 });
    expect(open.take('a', 'r1')).toBeNull();
    expect(open.take('a', 'r1')).toBe('run');
    expect(open.open()).toBe(1);
    open.give('a', 'r1');
    expect(open.open()).toBe(0);
    expect(open.take('a', 'r1')).toBeNull();
  });

  it("refuses a stream past the replica's cap, however many accounts share it, each within its own cap", () => {
    const open = new OpenStreams({ perRun: 4, perAccount: 10, total: 25 });
    const taken = ['a', 'b', 'c'].flatMap((account) =>
      Array.from({ length: 10 }, (_, i) => open.take(account, `${account}-r${i % 3}`)),
    );
    expect(taken.filter((t) => t === null)).toHaveLength(25);
    expect(taken.slice(25)).toEqual(Array(5).fill('replica'));
    expect(open.open()).toBe(25);
    open.give('a', 'a-r0');
    expect(open.take('c', 'c-r0')).toBeNull();
  });
});
