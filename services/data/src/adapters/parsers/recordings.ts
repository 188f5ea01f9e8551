import { readFile } from 'node:fs/promises';
import { findMetric, type IngestBatchInput } from '@meridian/contracts';
import {
  COLDEST_PLACE,
  PUBMED_TYPES,
  TIDE_STATION,
  WEATHER_CITIES,
} from '../../domain/feeds/observation-keys.js';
import type { ReplayClock, ShiftUnit } from '../../domain/replay-clock.js';
import { parseDeribitOptions } from './derivatives/deribit.js';
import { parseEspnScoreboard } from './feeds/espn.js';
import {
  parseFederalRegisterFacets,
  parseAvgInterestRates,
  parseDebtToPenny,
  parseNyc311,
} from './feeds/civic.js';
import { parseEiaSpot, parseLbma } from './feeds/commodities.js';
import {
  parseBlockchainStats,
  parseEcbEurofxref,
  parseFarsideFlows,
  parseFredObservations,
  parseFredSeries,
} from './feeds/markets.js';
import { parseNiceDownloads, parsePubmedCount, parseRadiopaediaSummary } from './feeds/medical.js';
import {
  parseAstros,
  parseNoaaWaterLevel,
  parseOpenMeteo,
  parseSwpcKp,
  parseSwpcSunspots,
  parseUsgsFeed,
} from './feeds/world.js';

/** The recorded upstream answers shipped with the service (services/data/recordings, see its README). */
export const RECORDINGS_DIR = new URL('../../../recordings/', import.meta.url);

/** One recorded upstream answer under services/data/recordings/, in the upstream's own format. */
export interface Recording {
  file: string;
  /** The upstream whose format it is (the venue named in provenance). */
  source: string;
  /** When the upstream answered: the replay lands this instant just before now. */
  recordedAt: string;
  shift: ShiftUnit;
  /** True for the real recorded data; false for the small hand-written samples. */
  real: boolean;
  /** `calendar`: the whole-day shift of the play, for a recording with `calendar: 'day'`. */
  parse(text: string, clock: ReplayClock, calendar?: ReplayClock): IngestBatchInput | IngestBatchInput[];
  /**
   * 'day': its calendar (an option's expiry, and so its name and scaled strike; a game's start) follows
   * the whole-day shift of each play, not the play's slot, so an instrument keeps its name, strike and
   * expiry, and a game its start, for a replay day however often the recording is played again.
   */
  calendar?: 'day';
  /** What the calendar maps, in the replay marker's words ("expiries, strikes and names"). */
  calendarMaps?: string;
  /**
   * The BTC price in USD the recording was made at, for recordings whose BTC prices are scaled to
   * the replayed spot level (domain/feeds/btc-level.ts); absent for every other recording.
   */
  btcLevel?(text: string): number;
  /**
   * For a feed whose values age in minutes: played at the start of every slot of this length (the
   * product's cadence_ms in the catalogue) instead of shifted by whole days (replay-clock.ts,
   * `slotShift`); each play replaces the previous one.
   */
  refreshMs?: number;
}

/** The cadence of a product in the catalogue, the slot its recordings are played again at. */
function cadenceOf(path: string): number {
  const [category, product, metric] = path.split('/') as [string, string, string];
  return findMetric(category, product, metric)!.metric.cadence_ms!;
}

/** A recording of a feed whose values age in minutes, played again every cadence of `metricPath`. */
const fresh = (recording: Recording, metricPath: string): Recording => ({
  ...recording,
  refreshMs: cadenceOf(metricPath),
});

/** The options chain's index price (one for the whole snapshot). */
function optionsIndexPrice(text: string): number {
  const [header, first] = text.split('\n', 2);
  const cells = first!.split(',');
  return Number(cells[header!.split(',').indexOf('index_price')]);
}

const day = (file: string, source: string, recordedAt: string, parse: Recording['parse']): Recording => ({
  file,
  source,
  recordedAt,
  shift: 'day',
  real: false,
  parse,
});

const SAMPLE_DAY = '2024-11-14';
const espn = (sport: string, league: string, file: string, at: string): Recording =>
  fresh(
    {
      ...day(`espn/${file}_scoreboard_${SAMPLE_DAY}.json`, 'espn', at, (t, c, calendar) =>
        parseEspnScoreboard(t, sport, league, at, c, calendar),
      ),
      calendar: 'day',
      calendarMaps: 'game starts',
    },
    `sports/${sport}/live_score`,
  );

export const RECORDINGS: Recording[] = [
  fresh(
    {
      ...day(
        'deribit/btc_options_2020-05-21.csv',
        'deribit',
        '2020-05-21T23:22:35.277Z',
        parseDeribitOptions,
      ),
      real: true,
      calendar: 'day',
      calendarMaps: 'expiries, strikes and names',
      btcLevel: optionsIndexPrice,
    },
    'crypto/options/chain',
  ),
  day(`farside/btc_etf_flows_${SAMPLE_DAY}.csv`, 'farside', '2024-11-14T23:30:00Z', parseFarsideFlows),
  fresh(
    {
      ...day(
        `blockchain_info/stats_${SAMPLE_DAY}.json`,
        'blockchain_info',
        '2024-11-14T14:00:00Z',
        parseBlockchainStats,
      ),
      btcLevel: (t) => (JSON.parse(t) as { market_price_usd: number }).market_price_usd,
    },
    'crypto/network/market_cap',
  ),
  day(`ecb/eurofxref-hist-90d_${SAMPLE_DAY}.xml`, 'ecb', '2024-11-14T15:10:00Z', parseEcbEurofxref),
  fresh(
    day(`open_meteo/current_cities_${SAMPLE_DAY}.json`, 'open_meteo', '2024-11-14T12:05:00Z', (t, c) =>
      parseOpenMeteo(t, WEATHER_CITIES, c),
    ),
    'weather/observations/temperature',
  ),
  fresh(
    day(`open_meteo/current_oymyakon_${SAMPLE_DAY}.json`, 'open_meteo', '2024-11-14T12:05:00Z', (t, c) =>
      parseOpenMeteo(t, [COLDEST_PLACE], c),
    ),
    'absurd_earth/weather/temperature',
  ),
  espn('basketball', 'nba', 'basketball_nba', '2024-11-14T02:50:00Z'),
  espn('football', 'eng.1', 'soccer_eng.1', '2024-11-14T16:22:00Z'),
  espn('football', 'usa.1', 'soccer_usa.1', '2024-11-14T16:22:00Z'),
  espn('tennis', 'atp', 'tennis_atp', '2024-11-14T20:30:00Z'),
  espn('tennis', 'wta', 'tennis_wta', '2024-11-14T20:30:00Z'),
  fresh(
    day(
      `noaa_swpc/noaa-planetary-k-index_${SAMPLE_DAY}.json`,
      'noaa_swpc',
      '2024-11-14T12:10:00Z',
      parseSwpcKp,
    ),
    'absurd_cosmos/space_weather/planetary_kp',
  ),
  {
    ...day(
      `noaa_swpc/observed-solar-cycle-indices_${SAMPLE_DAY}.json`,
      'noaa_swpc',
      '2024-11-14T12:10:00Z',
      parseSwpcSunspots,
    ),
    shift: 'month',
  },
  fresh(
    day(`usgs/all_day_${SAMPLE_DAY}.geojson`, 'usgs', '2024-11-14T12:00:00Z', parseUsgsFeed),
    'absurd_cosmos/restless_earth/quakes_last_hour',
  ),
  day(`open_notify/astros_${SAMPLE_DAY}.json`, 'open_notify', '2024-11-14T12:00:00Z', (t, c) =>
    parseAstros(t, '2024-11-14T12:00:00Z', c),
  ),
  day(`federal_register/facets_type_${SAMPLE_DAY}.json`, 'federal_register', '2024-11-14T14:00:00Z', (t, c) =>
    parseFederalRegisterFacets(t, '2024-11-14T14:00:00Z', c),
  ),
  day(`nyc_311/rat_sightings_${SAMPLE_DAY}.json`, 'nyc_311', '2024-11-14T16:00:00Z', (t, c) =>
    parseNyc311(t, '2024-11-14T16:00:00Z', c),
  ),
  day(
    `fiscal_data/debt_to_penny_${SAMPLE_DAY}.json`,
    'fiscal_data',
    '2024-11-14T20:00:00Z',
    parseDebtToPenny,
  ),
  {
    ...day(
      `fiscal_data/avg_interest_rates_${SAMPLE_DAY}.json`,
      'fiscal_data',
      '2024-11-14T20:00:00Z',
      parseAvgInterestRates,
    ),
    shift: 'month',
  },
  fresh(
    day(
      `noaa_tides/water_level_${TIDE_STATION}_${SAMPLE_DAY}.json`,
      'noaa_tides',
      '2024-11-14T12:03:00Z',
      parseNoaaWaterLevel,
    ),
    'absurd_earth/tides/water_level',
  ),
  // Daily index closes and the copper price come from FRED, as the live connectors read them (README:
  // Stooq grants no documented licence of reuse; LME forbids redistributing its prices).
  ...(
    [
      ['SP500', 'sp500'],
      ['NASDAQCOM', 'nasdaq'],
    ] as const
  ).map(([id, key]) =>
    day(`fred/${id}_${SAMPLE_DAY}.json`, 'fred', '2024-11-14T22:00:00Z', (t, c) =>
      parseFredSeries(t, { metric: 'index_close', key, scale: 1 }, c),
    ),
  ),
  day(`eia/petroleum_pri_spt_RWTC_${SAMPLE_DAY}.json`, 'eia', '2024-11-14T18:00:00Z', parseEiaSpot),
  day(`eia/natural-gas_pri_fut_RNGWHHD_${SAMPLE_DAY}.json`, 'eia', '2024-11-14T18:00:00Z', parseEiaSpot),
  day(`lbma/gold_pm_${SAMPLE_DAY}.json`, 'lbma', '2024-11-14T16:00:00Z', (t, c) =>
    parseLbma(t, 'gold', '15:00:00', c),
  ),
  day(`lbma/silver_${SAMPLE_DAY}.json`, 'lbma', '2024-11-14T16:00:00Z', (t, c) =>
    parseLbma(t, 'silver', '12:00:00', c),
  ),
  {
    ...day(`fred/PCOPPUSDM_${SAMPLE_DAY}.json`, 'fred', '2024-11-14T15:00:00Z', (t, c) =>
      parseFredSeries(t, { metric: 'commodity_spot', key: 'copper', scale: 1 }, c),
    ),
    shift: 'month',
  },
  {
    ...day(`fred/M2SL_${SAMPLE_DAY}.json`, 'fred', '2024-11-14T15:00:00Z', (t, c) =>
      parseFredObservations(t, 'm2_money_supply', 1e9, c),
    ),
    shift: 'month',
  },
  {
    ...day(`fred/CPIAUCSL_${SAMPLE_DAY}.json`, 'fred', '2024-11-14T15:00:00Z', (t, c) =>
      parseFredObservations(t, 'cpi', 1, c),
    ),
    shift: 'month',
  },
  ...['all', ...PUBMED_TYPES].map((type) =>
    day(`pubmed/esearch_${type}_2024-11-13.json`, 'pubmed', '2024-11-14T06:00:00Z', (t, c) =>
      parsePubmedCount(t, type, '2024-11-13', c),
    ),
  ),
  {
    ...day('nice/guidance_downloads_2024-10.csv', 'nice', '2024-11-14T09:00:00Z', parseNiceDownloads),
    shift: 'month',
  },
  day(
    `radiopaedia/articles_summary_${SAMPLE_DAY}.json`,
    'radiopaedia',
    '2024-11-14T06:00:00Z',
    parseRadiopaediaSummary,
  ),
];

/** The text of a recording as the upstream answered it. */
export function readRecording(recording: Recording): Promise<string> {
  return readFile(new URL(recording.file, RECORDINGS_DIR), 'utf8');
}
