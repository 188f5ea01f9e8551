import type { ConnectorDefinition, ConnectorKeys } from '../../src/adapters/connectors/connector.js';
import { ecb } from '../../src/adapters/connectors/feeds/ecb.js';
import { eia } from '../../src/adapters/connectors/feeds/eia.js';
import { farside } from '../../src/adapters/connectors/feeds/farside.js';
import { fred, fredIndices } from '../../src/adapters/connectors/feeds/fred.js';
import { lbma } from '../../src/adapters/connectors/feeds/lbma.js';
import { pubmed } from '../../src/adapters/connectors/feeds/pubmed.js';
import { PUBMED_TYPES } from '../../src/domain/feeds/observation-keys.js';
import { recording } from './recordings.js';

/**
 * The market, macro and medical upstreams as live-markets.test.ts plays them: per connector family,
 * the recorded answers of each path it reads, and answers malformed or empty in its own format.
 */

/** A key that must never leave the request: not in /ready, not in an error message. */
export const FRED_KEY = 'fredkey0123456789abcdef0123456789';
export const KEYS: ConnectorKeys = {
  FRED_API_KEY: FRED_KEY,
  EIA_API_KEY: 'eiakey-test-0001',
  INGEST_CONTACT: 'ops@meridian.test',
};

/**
 * One upstream family: the connector, the recorded answers of each path it reads (in the order it
 * asks, a path asked several times answers them in turn), and answers that are malformed or empty in
 * that upstream's own format.
 */
export interface Family {
  def: ConnectorDefinition;
  source: string;
  /** The metrics it stores (two connectors share the source fred). */
  metrics: string[];
  rows: number;
  answers: () => Promise<[path: string, bodies: string[]][]>;
  malformed: string;
  empty: string;
}

export const FRED_PATH = '/fred/series/observations';
export const PUBMED_PATH = '/entrez/eutils/esearch.fcgi';
const PUBMED_FILES = ['all', ...PUBMED_TYPES].map((t) => `pubmed/esearch_${t}_2024-11-13.json`);

export const FAMILIES: Family[] = [
  {
    def: farside,
    source: 'farside',
    metrics: ['etf_net_flow', 'etf_cumulative_net_flow'],
    rows: 36,
    answers: async () => [['/btc/', [recording('farside/btc_etf_flows_2024-11-14.html')]]],
    malformed: '<html><head><title>Just a moment...</title></head><body></body></html>',
    empty:
      '<table class="etf"><tr><th></th><th>IBIT</th><th>FBTC</th><th>Total</th></tr>' +
      '<tr><td>15 Nov 2024</td><td>-</td><td>-</td><td>-</td></tr></table>',
  },
  {
    def: ecb,
    source: 'ecb',
    metrics: ['fx_reference_rate'],
    rows: 6,
    answers: async () => [
      ['/stats/eurofxref/eurofxref-hist-90d.xml', [recording('ecb/eurofxref-hist-90d_2024-11-14.xml')]],
    ],
    malformed: '<?xml version="1.0" encoding="UTF-8"?>\n<gesmes:Envelope xmlns:gesmes="x">\n<Cube>',
    empty:
      '<?xml version="1.0" encoding="UTF-8"?>\n<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01">\n<Cube>\n</Cube>\n</gesmes:Envelope>\n',
  },
  {
    def: fred,
    source: 'fred',
    metrics: ['m2_money_supply', 'cpi', 'commodity_spot'],
    rows: 21 + 22 + 13,
    answers: async () => [
      [
        FRED_PATH,
        [
          recording('fred/M2SL_2024-11-14.json'),
          recording('fred/CPIAUCSL_2024-11-14.json'),
          recording('fred/PCOPPUSDM_2024-11-14.json'),
        ],
      ],
    ],
    malformed: '{"error_code":400,"error_message":"Bad Request.  The series does not exist."}',
    empty: '{"count":0,"observations":[]}',
  },
  {
    def: fredIndices,
    source: 'fred',
    metrics: ['index_close'],
    rows: 10,
    answers: async () => [
      [FRED_PATH, [recording('fred/SP500_2024-11-14.json'), recording('fred/NASDAQCOM_2024-11-14.json')]],
    ],
    malformed: '{"observations": [{"date": "2024-11-14", "val',
    empty: '{"count":0,"observations":[]}',
  },
  {
    def: eia,
    source: 'eia',
    metrics: ['commodity_spot'],
    rows: 8,
    answers: async () => [
      ['/v2/petroleum/pri/spt/data/', [recording('eia/petroleum_pri_spt_RWTC_2024-11-14.json')]],
      ['/v2/natural-gas/pri/fut/data/', [recording('eia/natural-gas_pri_fut_RNGWHHD_2024-11-14.json')]],
    ],
    malformed: '{"error":"invalid api_key"}',
    empty: '{"response":{"total":0,"data":[]},"apiVersion":"2.1.8"}',
  },
  {
    def: lbma,
    source: 'lbma',
    metrics: ['commodity_spot'],
    rows: 8,
    answers: async () => [
      ['/json/gold_pm.json', [recording('lbma/gold_pm_2024-11-14.json')]],
      ['/json/silver.json', [recording('lbma/silver_2024-11-14.json')]],
    ],
    malformed: '<!DOCTYPE html><html><body>Maintenance</body></html>',
    empty: '[]',
  },
  {
    def: pubmed,
    source: 'pubmed',
    metrics: ['publication_count'],
    rows: 6,
    answers: async () => [[PUBMED_PATH, PUBMED_FILES.map((file) => recording(file))]],
    malformed: '{"header":{"type":"esearch"},"esearchresult":{"ERROR":"Search Backend failed"}}',
    empty:
      '{"header":{"type":"esearch","version":"0.3"},"esearchresult":{"count":"0","retmax":"0","retstart":"0","idlist":[]}}',
  },
];

export const pathsOf = async (f: Family) => (await f.answers()).map(([p]) => p);
