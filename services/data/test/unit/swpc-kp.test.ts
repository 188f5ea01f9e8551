import { describe, expect, it } from '@jest/globals';
import { parseSwpcKp } from '../../src/adapters/parsers/feeds/world.js';
import { recordedTime } from '../../src/domain/replay-clock.js';

describe('SWPC planetary Kp, both of its formats', () => {
  const rowsOf = (text: string) => parseSwpcKp(text, recordedTime).rows;

  it('reads the header-and-strings format (until 2026) and the objects format alike', () => {
    const old = JSON.stringify([
      ['time_tag', 'Kp', 'a_running', 'station_count'],
      ['2024-11-13 03:00:00.000', '2.33', '9', '8'],
    ]);
    const now = JSON.stringify([
      { time_tag: '2024-11-13T03:00:00', Kp: 2.33, a_running: 9, station_count: 8 },
    ]);
    const expected = [
      {
        key: '',
        metric: 'planetary_kp',
        ts: '2024-11-13T03:00:00.000Z',
        value: 2.33,
        payload: { a_running: 9, station_count: 8 },
      },
    ];
    expect(rowsOf(old)).toEqual(expected);
    expect(rowsOf(now)).toEqual(expected);
  });

  it('takes a time tag that says Z, skips a Kp not yet determined, refuses what is not this format', () => {
    const rows = rowsOf(
      JSON.stringify([
        { time_tag: '2026-05-27T21:00:00Z', Kp: 3.33, a_running: 18, station_count: 8 },
        { time_tag: '2026-05-28T00:00:00', Kp: null, a_running: null, station_count: 0 },
      ]),
    );
    expect(rows).toEqual([expect.objectContaining({ ts: '2026-05-27T21:00:00.000Z', value: 3.33 })]);
    expect(() => rowsOf('{"Kp": 3}')).toThrow(/not an array/);
    expect(() => rowsOf('[{"Kp": 3}]')).toThrow(/without time_tag/);
  });
});
