import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../scripts/import.js';
import { migratedDatabase, type MigratedDatabase } from '../support/db.js';

const CHAIN = fileURLToPath(new URL('../../recordings/deribit/btc_options_2020-05-21.csv', import.meta.url));

/** pnpm data:import as the command runs it (its main function), against a test database. */
describe('pnpm data:import', () => {
  let db: MigratedDatabase;
  let dir: string;
  beforeAll(async () => {
    db = await migratedDatabase('data_import');
    dir = mkdtempSync(join(tmpdir(), 'data-import-'));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await db.drop();
  });

  async function run(...argv: string[]) {
    let stdout = '';
    let stderr = '';
    const code = await main(argv, {
      env: { DATABASE_URL: db.url },
      stdout: (s) => (stdout += s),
      stderr: (s) => (stderr += s),
    });
    return { code, stdout, stderr };
  }

  it('imports a Deribit option chain through the Deribit parser: inserted once, unchanged the second time', async () => {
    const args = ['--kind', 'option_marks', '--source', 'deribit', '--file', CHAIN];
    const first = await run(...args);
    expect(first).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('326 option_marks rows for deribit'),
    });
    expect(first.stdout).toContain('326 inserted, 0 updated, 0 unchanged');
    const second = await run(...args);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('0 inserted, 0 updated, 326 unchanged');
    // CSV row BTC-26JUN20-9000-C: mark_price 0.10903998 BTC x underlying_price 9094.29; mark_iv 84.25 %.
    const mark = await db.db
      .selectFrom('option_marks')
      .select(['ts', 'expiry', 'mark_price_usd', 'mark_iv', 'delta'])
      .where('instrument', '=', 'BTC-26JUN20-9000-C')
      .executeTakeFirstOrThrow();
    expect(mark.mark_price_usd).toBeCloseTo(0.10903998 * 9094.29, 6);
    expect(mark.mark_iv).toBeCloseTo(0.8425, 10);
    expect(mark.expiry.toISOString()).toBe('2020-06-26T08:00:00.000Z');
    expect(mark.ts.getUTCFullYear()).toBe(2020);
  });

  it('reads a generic CSV with a real CSV parser: quoted commas, quotes, and a digit-only id kept as text', async () => {
    const observations = join(dir, 'observations.csv');
    writeFileSync(
      observations,
      'key,metric,ts,value,payload\r\n' +
        'london,temperature,2024-11-14T12:00:00Z,7.5,"{""note"": ""grey, and \\""mild\\"""", ""n"": 2}"\n' +
        'tokyo,temperature,2024-11-14T12:00:00Z,,\n',
    );
    const done = await run('--kind', 'observations', '--source', 'open_meteo', '--file', observations);
    expect(done.stdout).toContain('2 inserted');
    const rows = await db.db
      .selectFrom('observations')
      .select(['key', 'value', 'payload'])
      .where('source', '=', 'open_meteo')
      .orderBy('key')
      .execute();
    expect(rows).toEqual([
      { key: 'london', value: '7.5', payload: { note: 'grey, and "mild"', n: 2 } },
      { key: 'tokyo', value: null, payload: {} },
    ]);
    const trades = join(dir, 'trades.csv');
    writeFileSync(trades, 'trade_id,ts,price,size,taker_side\n00123,2023-03-11T00:00:01Z,20000.5,0.1,sell\n');
    const traded = await run(
      '--kind',
      'trades',
      '--source',
      'kraken',
      '--symbol',
      'BTC-USDC',
      '--file',
      trades,
    );
    expect(traded.stdout).toContain('1 inserted');
    const print = await db.db.selectFrom('trades').select(['trade_id', 'price']).executeTakeFirstOrThrow();
    expect(print).toEqual({ trade_id: '00123', price: 20000.5 });
  });

  it('refuses a market outside the catalogue and a bad row, with the reason and exit code 2', async () => {
    const bars = join(dir, 'bars.csv');
    writeFileSync(bars, 'ts,open,high,low,close,volume\n2023-03-11T00:00:00Z,1,2,0.5,1.5,3\n');
    const eur = await run('--kind', 'candles', '--source', 'kraken', '--symbol', 'BTC-EUR', '--file', bars);
    expect(eur).toMatchObject({ code: 2, stdout: '' });
    expect(eur.stderr).toContain('BTC-EUR is not a crypto/spot market of the catalogue');
    writeFileSync(bars, 'ts,open,high,low,close,volume\n2023-03-11T00:00:00Z,1,2,0.5,-1,3\n');
    const bad = await run('--kind', 'candles', '--source', 'kraken', '--symbol', 'BTC-USDC', '--file', bars);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/rows\.0\.close: .* \(row 1\)/);
    const missing = await run('--kind', 'candles');
    expect([missing.code, missing.stderr]).toEqual([
      2,
      expect.stringContaining('--source and --file are required'),
    ]);
  });
});
