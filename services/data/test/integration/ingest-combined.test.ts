import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { waitFor } from '@meridian/bus/testing';
import {
  backfillCombinedHours,
  backfillCombinedRollups,
  missingCombinedHours,
  refreshCombinedRollups,
} from '../../src/db/repositories/combined-rollups.js';
import { catalogFor, type IngestBatch } from '@meridian/contracts';
import { ingest as ingestIn } from '../../src/flows/ingest.js';
import { migratedDatabase, type MigratedDatabase } from '../support/db.js';

/**
 * The combined roll-ups (every market of a base in one bar) that ingestion keeps: complete under
 * concurrent batches, and backfilled once for hours whose 1m bars were stored before them.
 */

/** Ingestion bound by the replay's catalogue (the recorded BTC markets), as INGEST_MODE=off and replay are. */
const ingest = (db: Parameters<typeof ingestIn>[0], batch: IngestBatch) =>
  ingestIn(db, batch, catalogFor('replay'));

describe('ingest: combined roll-ups', () => {
  let db: MigratedDatabase;
  beforeAll(async () => {
    db = await migratedDatabase('data_ingest_combined');
  });
  afterAll(() => db.drop());

  it('concurrent batches of different markets of one base leave every combined roll-up complete', async () => {
    const minute = (hour: number, m: number) => Date.UTC(2023, 3, 2, hour, m);
    const usd = (t: number) => 28000 + ((t / 60_000) % 97);
    const peg = (t: number) => 1 - ((t / 60_000) % 13) / 100;
    const batch = (source: string, symbol: string, hour: number): IngestBatch => ({
      kind: 'candles',
      source,
      symbol,
      interval: '1m',
      rows: Array.from({ length: 60 }, (_, m) => {
        const t = minute(hour, m);
        const px = symbol === 'BTC-USD' ? usd(t) : usd(t) / peg(t);
        return { ts: new Date(t).toISOString(), open: px, high: px + 1, low: px - 1, close: px, volume: 1 };
      }),
    });
    // Each hour's three markets at once; each batch recomputes the combined hours from every market.
    for (let hour = 0; hour < 12; hour++)
      await Promise.all([
        ingest(db.db, batch('v1', 'BTC-USD', hour)),
        ingest(db.db, batch('v1', 'BTC-USDC', hour)),
        ingest(db.db, batch('v2', 'BTC-USDC', hour)),
      ]);
    const stored = () =>
      db.db
        .selectFrom('combined_rollups')
        .selectAll()
        .where('ts', '>=', new Date(minute(0, 0)))
        .orderBy('bucket')
        .orderBy('ts')
        .execute();
    const hours = (await stored()).filter((r) => r.bucket === '1h');
    expect(hours.map((h) => [h.bars, h.markets.map((m) => `${m.venue}:${m.symbol}:${m.bars}`)])).toEqual(
      Array.from({ length: 12 }, () => [60, ['v1:BTC-USD:60', 'v1:BTC-USDC:60', 'v2:BTC-USDC:60']]),
    );
    // The same rows as one recomputation over everything, in one transaction.
    const concurrent = await stored();
    await db.db.transaction().execute((trx) =>
      refreshCombinedRollups(
        trx,
        'BTC',
        Array.from({ length: 12 * 60 }, (_, m) => minute(0, m)),
      ),
    );
    expect(await stored()).toEqual(concurrent);
  });

  // As if hours 03:00-11:00 of 2023-04-02 (and so their day) had been ingested before the table existed.
  const missingHours = Array.from({ length: 9 }, (_, h) => Date.UTC(2023, 3, 2, 3 + h));
  const forgetHours = () =>
    db.db
      .deleteFrom('combined_rollups')
      .where((eb) =>
        eb.or([
          eb('ts', '>=', new Date(Date.UTC(2023, 3, 2, 3))),
          eb.and([eb('bucket', '=', '1d'), eb('ts', '=', new Date(Date.UTC(2023, 3, 2)))]),
        ]),
      )
      .execute();
  const allCombined = () =>
    db.db
      .selectFrom('combined_rollups')
      .selectAll()
      .orderBy('bucket')
      .orderBy('base')
      .orderBy('ts')
      .execute();
  /** Each row's creating transaction: an upsert that rewrites a row with equal values still changes it. */
  const rowVersions = async () =>
    (
      await sql<{
        v: string;
      }>`select xmin::text as v from data.combined_rollups order by bucket, base, ts`.execute(db.db)
    ).rows.map((r) => r.v);

  it('backfills the combined roll-ups that 1m bars stored before them lack, and only those', async () => {
    expect(await missingCombinedHours(db.db)).toEqual([]);
    const complete = await allCombined();
    await forgetHours();
    expect(await missingCombinedHours(db.db)).toEqual([{ base: 'BTC', hours: missingHours }]);
    expect(await backfillCombinedRollups(db.db)).toBe(9);
    expect(await allCombined()).toEqual(complete);
    const versions = await rowVersions();
    expect(await backfillCombinedRollups(db.db)).toBe(0);
    expect(await rowVersions()).toEqual(versions);
  });

  it('a backfill given hours that were computed since it listed them writes nothing', async () => {
    const versions = await rowVersions();
    expect(await db.db.transaction().execute((trx) => backfillCombinedHours(trx, 'BTC', missingHours))).toBe(
      0,
    );
    expect(await rowVersions()).toEqual(versions);
  });

  // Both backfills list the missing hours, then wait for the base's lock held here, so their runs overlap.
  it.each([
    ['replicas (one runs, the other skips)', false],
    ['unlocked runs (each day re-read under the base lock)', true],
  ])('concurrent backfills compute each missing hour once: %s', async (_, singleConnection) => {
    const complete = await allCombined();
    await forgetHours();
    const waiting = async () =>
      Number(
        (
          await sql<{ n: string }>`select count(*)::text as n from pg_locks
            where locktype = 'advisory' and not granted and database = (select oid from pg_database where datname = current_database())`.execute(
            db.db,
          )
        ).rows[0]!.n,
      );
    const baseLock = await db.db.startTransaction().execute();
    await sql`select pg_advisory_xact_lock(hashtext('data.combined_rollups'), hashtext('BTC'))`.execute(
      baseLock,
    );
    const first = backfillCombinedRollups(db.db, { singleConnection });
    await waitFor(async () => (await waiting()) === 1, {
      what: 'the first backfill to wait for the base lock',
    });
    let secondDone = false;
    const second = backfillCombinedRollups(db.db, { singleConnection }).finally(() => (secondDone = true));
    await waitFor(async () => secondDone || (await waiting()) === 2, {
      what: 'the second backfill to start',
    });
    await baseLock.commit().execute();
    const counts = await Promise.all([first, second]);
    expect(counts).toEqual(singleConnection ? [9, 0] : [9, undefined]);
    expect(await allCombined()).toEqual(complete);
  });
});
