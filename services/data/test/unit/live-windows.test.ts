import { describe, expect, it } from '@jest/globals';
import { federalRegisterQuery } from '../../src/adapters/connectors/feeds/federal-register.js';
import { fiscalDataQuery } from '../../src/adapters/connectors/feeds/fiscal-data.js';
import { tidesQuery } from '../../src/adapters/connectors/feeds/noaa-tides.js';
import { nyc311Query } from '../../src/adapters/connectors/feeds/nyc-311.js';
import { openMeteoQuery } from '../../src/adapters/connectors/feeds/open-meteo.js';
import {
  federalRegisterDay,
  fiscalDataSince,
  nyc311Since,
  tidesRange,
} from '../../src/domain/feeds/live-windows.js';

const at = (iso: string) => new Date(iso);

describe('the moving date windows of the live queries', () => {
  it('the Federal Register day is Washington’s, not UTC’s', () => {
    expect(federalRegisterDay(at('2024-11-14T14:00:00Z'))).toBe('2024-11-14');
    // 02:00 UTC on the 15th is still the evening of the 14th in Washington (EST, UTC-5).
    expect(federalRegisterDay(at('2024-11-15T02:00:00Z'))).toBe('2024-11-14');
    expect(federalRegisterDay(at('2024-11-15T05:00:00Z'))).toBe('2024-11-15');
    // Summer time (EDT, UTC-4).
    expect(federalRegisterDay(at('2024-07-04T03:59:00Z'))).toBe('2024-07-03');
    expect(federalRegisterDay(at('2024-07-04T04:00:00Z'))).toBe('2024-07-04');
  });

  it('NYC 311 asks from New York midnight `days` days back, in New York wall time', () => {
    expect(nyc311Since(at('2024-11-14T16:00:00Z'), 1)).toBe('2024-11-13T00:00:00');
    expect(nyc311Since(at('2024-11-15T03:00:00Z'), 1)).toBe('2024-11-13T00:00:00');
    expect(nyc311Since(at('2024-11-15T03:00:00Z'), 0)).toBe('2024-11-14T00:00:00');
    // Across the March change to summer time.
    expect(nyc311Since(at('2024-03-11T12:00:00Z'), 1)).toBe('2024-03-10T00:00:00');
  });

  it('Fiscal Data asks from the UTC date `days` back, across months and years', () => {
    expect(fiscalDataSince(at('2024-11-14T20:00:00Z'), 14)).toBe('2024-10-31');
    expect(fiscalDataSince(at('2024-11-14T20:00:00Z'), 100)).toBe('2024-08-06');
    expect(fiscalDataSince(at('2025-01-05T00:30:00Z'), 14)).toBe('2024-12-22');
  });

  it('NOAA tides asks the last hour in CO-OPS’s `yyyyMMdd HH:mm`, GMT', () => {
    expect(tidesRange(at('2024-11-14T12:03:27Z'), 60)).toEqual({
      begin_date: '20241114 11:03',
      end_date: '20241114 12:03',
    });
    expect(tidesRange(at('2025-01-01T00:20:00Z'), 60)).toEqual({
      begin_date: '20241231 23:20',
      end_date: '20250101 00:20',
    });
  });
});

describe('the live queries', () => {
  const params = (path: string) => new URL(path, 'http://upstream').searchParams;

  it('Open-Meteo: every place in one request, current conditions in UTC, the key only when set', () => {
    const q = params(openMeteoQuery(['london', 'new_york', 'tokyo']));
    expect(q.get('latitude')).toBe('51.5085,40.7143,35.6895');
    expect(q.get('longitude')).toBe('-0.1257,-74.006,139.6917');
    expect(q.get('timezone')).toBe('GMT');
    expect(q.has('apikey')).toBe(false);
    expect(params(openMeteoQuery(['oymyakon'], 'k')).get('apikey')).toBe('k');
  });

  it('NYC 311: rodent complaints since the bound, the parser’s columns, newest first', () => {
    const path = nyc311Query('2024-11-13T00:00:00');
    expect(path.startsWith('/resource/erm2-nwe9.json?')).toBe(true);
    const q = params(path);
    expect(q.get('$where')).toBe("complaint_type='Rodent' AND created_date >= '2024-11-13T00:00:00'");
    expect(q.get('$order')).toBe('created_date DESC');
  });

  it('Fiscal Data, the Federal Register and CO-OPS', () => {
    expect(params(fiscalDataQuery('debt_to_penny', '2024-10-31')).get('filter')).toBe(
      'record_date:gte:2024-10-31',
    );
    expect(params(federalRegisterQuery('2024-11-14')).get('conditions[publication_date][is]')).toBe(
      '2024-11-14',
    );
    const tides = params(tidesQuery({ begin_date: '20241114 11:03', end_date: '20241114 12:03' }));
    expect(Object.fromEntries(tides)).toMatchObject({
      product: 'water_level',
      station: '8518750',
      datum: 'MLLW',
      units: 'metric',
      time_zone: 'gmt',
      format: 'json',
      begin_date: '20241114 11:03',
    });
  });
});
