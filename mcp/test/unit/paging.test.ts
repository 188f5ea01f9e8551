import { describe, expect, it } from '@jest/globals';
import { pageOf, seriesPaging, type Envelope } from '../../src/domain/paging.js';
import { CHARS_PER_TOKEN, fitRows } from '../../src/domain/tokens.js';

const row = (i: number) => ({ instrument: `BTC-${i}`, strike: 1000 * i, note: 'x'.repeat(80) });
const chain = (n: number): Envelope => ({
  data: { underlying: 'BTC', options: Array.from({ length: n }, (_, i) => row(i)), venues: ['deribit'] },
  meta: { as_of: '2026-01-01T00:00:00Z' },
  provenance: { method: 'test' },
});
const cursorAt = (offset: number) => `c${offset}`;
const optionsOf = (page: Envelope) => (page.data as { options: Array<{ instrument: string }> }).options;

describe('fitRows', () => {
  it('keeps whole rows while they fit and names the first row left out', () => {
    const rows = ['aaaa', 'bbbb', 'cccc'];
    // each row costs its JSON (6) and a separator (1)
    expect(fitRows(rows, 0, 10 + 14, 10)).toEqual({ rows: ['aaaa', 'bbbb'], next: 2 });
    expect(fitRows(rows, 1, 1000, 10)).toEqual({ rows: ['bbbb', 'cccc'], next: null });
  });

  it('keeps at least one row, however small the budget, so a cursor always moves forward', () => {
    expect(fitRows(['a long row'], 0, 1, 1000)).toEqual({ rows: ['a long row'], next: null });
    expect(fitRows(['x', 'y'], 0, 1, 1000)).toEqual({ rows: ['x'], next: 1 });
  });
});

describe('a page of an answer that is not a series', () => {
  it('returns a small answer whole, saying it is complete', () => {
    const page = pageOf(chain(3), 0, 4000, cursorAt);
    expect(optionsOf(page)).toHaveLength(3);
    expect(page.meta).toMatchObject({
      as_of: '2026-01-01T00:00:00Z',
      truncated: false,
      next_cursor: null,
      returned: 3,
      total: 3,
      has_more: false,
      hint: 'Complete answer: 3 options.',
    });
    expect(page.provenance).toEqual({ method: 'test' });
  });

  it('cuts the longest list to whole rows within max_response_tokens and writes the cursor of the next row', () => {
    const page = pageOf(chain(200), 0, 1000, cursorAt);
    const options = optionsOf(page);
    expect(options.length).toBeGreaterThan(1);
    expect(options.length).toBeLessThan(200);
    expect(JSON.stringify(page).length).toBeLessThanOrEqual(1000 * CHARS_PER_TOKEN);
    expect(options.at(-1)).toEqual(row(options.length - 1));
    expect(page.meta).toMatchObject({ truncated: true, next_cursor: `c${options.length}`, has_more: true });
    expect(page.meta!.hint).toMatch(/^Truncated to options 1-\d+ of 200 .*cursor=meta\.next_cursor/);
    // the other fields of data are kept
    expect(page.data).toMatchObject({ underlying: 'BTC', venues: ['deribit'] });
  });

  it('walks every row exactly once, in order, from cursor to cursor', () => {
    const answer = chain(200);
    const seen: string[] = [];
    let offset = 0;
    for (let pages = 0; pages < 100; pages++) {
      const page = pageOf(answer, offset, 1000, String);
      seen.push(...optionsOf(page).map((o) => o.instrument));
      if (page.meta!.next_cursor === null) {
        expect(page.meta!.truncated).toBe(false);
        expect(page.meta!.hint).toMatch(/^Last page: options \d+-200 of 200\.$/);
        break;
      }
      offset = Number(page.meta!.next_cursor);
    }
    expect(seen).toEqual(
      answer.data &&
        (answer.data as { options: Array<{ instrument: string }> }).options.map((o) => o.instrument),
    );
  });

  it('pages a bare list as rows, and an offset past the end gives an empty last page', () => {
    const page = pageOf({ data: [1, 2, 3] }, 0, 4000, cursorAt);
    expect(page.data).toEqual([1, 2, 3]);
    expect(page.meta!.hint).toBe('Complete answer: 3 rows.');
    const past = pageOf({ data: [1, 2, 3] }, 10, 4000, cursorAt);
    expect(past.data).toEqual([]);
    expect(past.meta).toMatchObject({ truncated: false, next_cursor: null });
  });

  it('returns an answer without rows whole and says when it is larger than the budget', () => {
    const small = pageOf({ data: { price: 1 } }, 0, 200, cursorAt);
    expect(small.meta).toMatchObject({ truncated: false, next_cursor: null, hint: 'Complete answer.' });
    const big = pageOf({ data: { text: 'x'.repeat(5000) } }, 0, 200, cursorAt);
    expect(big.data).toEqual({ text: 'x'.repeat(5000) });
    expect(big.meta!.hint).toMatch(/larger than max_response_tokens=200: it has no rows to drop/);
  });
});

describe('the paging fields of a series answer', () => {
  it('are always present, with the data service cursor and hint passed through', () => {
    const page = seriesPaging({
      data: [],
      meta: { truncated: true, next_cursor: 'svc-cursor', returned: 50, hint: 'From the service.' },
    });
    expect(page.meta).toMatchObject({
      truncated: true,
      next_cursor: 'svc-cursor',
      hint: 'From the service.',
    });
  });

  it('fill what the data service left out of a complete answer', () => {
    expect(seriesPaging({ data: [], meta: { returned: 7 } }).meta).toEqual({
      returned: 7,
      truncated: false,
      next_cursor: null,
      hint: 'Complete: 7 rows.',
    });
    expect(seriesPaging({ data: [], meta: { next_cursor: 'k', returned: 5 } }).meta!.hint).toBe(
      'Page of 5 newest rows; older rows with cursor=meta.next_cursor.',
    );
  });
});
