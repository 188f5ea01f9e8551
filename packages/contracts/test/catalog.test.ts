import { describe, expect, it } from '@jest/globals';
import { allMetrics, findMetric } from '../src/index.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;
const MONTH = 31 * DAY;

const cadenceOf = (path: string) => {
  const hit = findMetric(...(path.split('/') as [string, string, string]))!;
  return { cadence_ms: hit.metric.cadence_ms, max_age_ms: hit.metric.max_age_ms };
};

describe('catalogue cadence', () => {
  it('gives every metric but a real-time tick one its cadence and max age in numbers', () => {
    for (const { product, metric } of allMetrics()) {
      const path = `${product.category}/${product.product}/${metric.metric}`;
      if (metric.cadence === 'real-time tick') {
        expect([path, metric.cadence_ms, metric.max_age_ms]).toEqual([path, undefined, undefined]);
        continue;
      }
      expect([path, metric.cadence_ms]).toEqual([path, expect.any(Number)]);
      expect([path, metric.max_age_ms! >= 3 * metric.cadence_ms!]).toEqual([path, true]);
    }
  });

  it('states the rhythm of each upstream: polls, business days, weekly and monthly releases with their lag', () => {
    // Polled, continuously changing upstreams: overdue after three polls.
    for (const path of [
      'crypto/futures/mark_price',
      'crypto/options/chain',
      'sports/tennis/live_score',
      'sports/basketball/box_score',
      'absurd_cosmos/restless_earth/quakes_last_hour',
    ])
      expect([path, cadenceOf(path)]).toEqual([path, { cadence_ms: 60 * SECOND, max_age_ms: 3 * MINUTE }]);
    expect(cadenceOf('crypto/network/hashrate')).toEqual({
      cadence_ms: 10 * MINUTE,
      max_age_ms: 30 * MINUTE,
    });
    // Open-Meteo current conditions are 15-minutely; NOAA water levels every 6 minutes.
    expect(cadenceOf('weather/observations/temperature')).toEqual({
      cadence_ms: 15 * MINUTE,
      max_age_ms: 45 * MINUTE,
    });
    expect(cadenceOf('absurd_earth/weather/temperature')).toEqual(
      cadenceOf('weather/observations/wind_speed'),
    );
    expect(cadenceOf('absurd_earth/tides/water_level')).toEqual({
      cadence_ms: 6 * MINUTE,
      max_age_ms: 18 * MINUTE,
    });
    // ECB fixings: daily on business days, so Friday's waits three days; then two missed fixings.
    expect(cadenceOf('fx/spot/reference_rate')).toEqual({ cadence_ms: DAY, max_age_ms: 5 * DAY });
    expect(cadenceOf('fx/spot/change_24h')).toEqual(cadenceOf('fx/spot/reference_rate'));
    // FRED posts a close dated 00:00 of its trading day the next US morning: one day of lag.
    expect(cadenceOf('stocks/indices/sp500')).toEqual({ cadence_ms: DAY, max_age_ms: 6 * DAY });
    // One product, two rhythms: the daily LBMA auctions and the IMF's monthly copper average.
    expect(cadenceOf('commodities/metals/gold')).toEqual({ cadence_ms: DAY, max_age_ms: 5 * DAY });
    expect(cadenceOf('commodities/metals/copper')).toEqual({
      cadence_ms: MONTH,
      max_age_ms: MONTH + WEEK + 3 * MONTH,
    });
    // A flow dated 00:00 of its trading day is published that evening: one day of lag.
    expect(cadenceOf('crypto/etf_flows/net_flow')).toEqual({ cadence_ms: DAY, max_age_ms: 6 * DAY });
    expect(cadenceOf('commodities/energy/wti_crude')).toEqual({
      cadence_ms: WEEK,
      max_age_ms: 2 * DAY + 3 * WEEK,
    });
    // One product, two rhythms: the daily debt and the monthly average rate.
    expect(cadenceOf('absurd_economy/treasury/national_debt')).toEqual({
      cadence_ms: DAY,
      max_age_ms: 6 * DAY,
    });
    expect(cadenceOf('absurd_economy/treasury/avg_interest_rate')).toEqual({
      cadence_ms: MONTH,
      max_age_ms: 2 * WEEK + 3 * MONTH,
    });
    expect(cadenceOf('absurd_cosmos/space_weather/planetary_kp')).toEqual({
      cadence_ms: 3 * HOUR,
      max_age_ms: 12 * HOUR,
    });
    expect(cadenceOf('macro/prices/cpi_inflation_yoy')).toEqual({
      cadence_ms: MONTH,
      max_age_ms: MONTH + 2 * WEEK + 3 * MONTH,
    });
    expect(cadenceOf('medical/guidelines/guideline_downloads').cadence_ms).toBe(MONTH);
  });

  it('says the cadence in words beside the numbers', () => {
    expect(findMetric('fx', 'spot', 'reference_rate')!.metric.cadence).toBe(
      'daily, ECB business days, about 16:00 CET',
    );
    expect(findMetric('crypto', 'options', 'chain')!.metric.cadence).toBe('about 60 s polled');
    expect(findMetric('crypto', 'spot', 'trades')!.metric.cadence).toBe('real-time tick');
  });
});
