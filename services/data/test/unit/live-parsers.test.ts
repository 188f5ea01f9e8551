import { describe, expect, it } from '@jest/globals';
import { recordedTime } from '../../src/domain/replay-clock.js';
import {
  parseEcbEurofxref,
  parseFarsideFlows,
  parseFarsideHtml,
  parseFredSeries,
} from '../../src/adapters/parsers/feeds/markets.js';
import { parsePubmedCount } from '../../src/adapters/parsers/feeds/medical.js';
import { pubmedTerm } from '../../src/adapters/connectors/feeds/pubmed.js';
import { recording } from '../support/recordings.js';

describe('Farside flow page (HTML)', () => {
  const html = recording('farside/btc_etf_flows_2024-11-14.html');

  it('reads the same rows as the CSV export of the same table, summary rows left out', () => {
    const fromPage = parseFarsideHtml(html, recordedTime).rows;
    expect(fromPage).toEqual(
      parseFarsideFlows(recording('farside/btc_etf_flows_2024-11-14.csv'), recordedTime).rows,
    );
    expect(fromPage).toContainEqual(
      expect.objectContaining({ key: 'FBTC', metric: 'etf_net_flow', value: -179_200_000 }),
    );
  });

  it('leaves out a day whose funds have not reported yet (every cell "-"), not stored as zero', () => {
    const dash = '<td><span class="tabletext">-</span></td>';
    const pending = html.replace(
      '</tbody>',
      `<tr><td><span class="tabletext">15 Nov 2024</span></td>${dash.repeat(6)}</tr></tbody>`,
    );
    const rows = parseFarsideHtml(pending, recordedTime).rows as { ts: string }[];
    expect(rows.some((r) => r.ts.startsWith('2024-11-15'))).toBe(false);
  });

  it('throws on a page without the flow table (a bot challenge, a redesign)', () => {
    expect(() => parseFarsideHtml('<html><title>Just a moment...</title></html>', recordedTime)).toThrow(
      /table class="etf"/,
    );
  });
});

describe('ECB eurofxref XML', () => {
  it('reads every fixing of the envelope, crossing GBP and JPY through the euro', () => {
    const rows = parseEcbEurofxref(recording('ecb/eurofxref-hist-90d_2024-11-14.xml'), recordedTime).rows;
    expect(rows).toHaveLength(6);
    expect(rows).toContainEqual(
      expect.objectContaining({ key: 'EUR-USD', ts: '2024-11-14T15:00:00.000Z', value: 1.054 }),
    );
    expect(rows).toContainEqual(
      expect.objectContaining({ key: 'USD-JPY', value: Math.round((164.51 / 1.0564) * 1e6) / 1e6 }),
    );
  });

  it('throws on a truncated or foreign document; an envelope without days is empty', () => {
    const xml = recording('ecb/eurofxref-hist-90d_2024-11-14.xml');
    expect(() => parseEcbEurofxref(xml.slice(0, 400), recordedTime)).toThrow(/gesmes/);
    expect(() => parseEcbEurofxref('{"rates":{}}', recordedTime)).toThrow();
    const empty = xml.replace(/<Cube>[\s\S]*<\/Cube>/, '<Cube></Cube>');
    expect(parseEcbEurofxref(empty, recordedTime).rows).toEqual([]);
  });
});

describe('FRED series', () => {
  it('stores a series under its target, skipping "." days', () => {
    const text = JSON.stringify({
      observations: [
        { date: '2024-11-11', value: '.' },
        { date: '2024-11-12', value: '5983.99' },
      ],
    });
    expect(
      parseFredSeries(text, { metric: 'index_close', key: 'sp500', scale: 1 }, recordedTime).rows,
    ).toEqual([{ key: 'sp500', metric: 'index_close', ts: '2024-11-12T00:00:00.000Z', value: 5983.99 }]);
    expect(() =>
      parseFredSeries('{"error_code":400}', { metric: 'm', key: '', scale: 1 }, recordedTime),
    ).toThrow(/without observations/);
  });
});

describe('NCBI esearch', () => {
  it("asks for a day's records by Entrez date, of one publication type or all", () => {
    expect(pubmedTerm('2024-11-13', 'all')).toBe('"2024/11/13"[Date - Entry]');
    // The term the recording was answered for, as NCBI translated it.
    const recorded = JSON.parse(recording('pubmed/esearch_meta_analysis_2024-11-13.json')) as {
      esearchresult: { querytranslation: string };
    };
    expect(pubmedTerm('2024-11-13', 'meta_analysis')).toBe(recorded.esearchresult.querytranslation);
  });

  it('throws on an answer without a count (NCBI refuses a query with 200 and an ERROR)', () => {
    const refused = '{"esearchresult":{"ERROR":"Invalid query"}}';
    expect(() => parsePubmedCount(refused, 'all', '2024-11-13', recordedTime)).toThrow(/Invalid query/);
  });
});
