import { callerHeaders } from '@meridian/http-kit/testing';
import type { Deps } from '../../src/app.js';
import { testApp, testDeps } from './app.js';
import { migratedDatabase, type MigratedDatabase } from './db.js';
import { ingestBars, MINUTE, recordedWindow } from './recorded.js';

/** The recorded minute played as "now": deep in the USDC depeg (USDC about 0.90 USD). */
const DEPEG = Date.parse('2023-03-11T06:00:00Z');
export const NOW_MINUTE = Math.floor(Date.now() / MINUTE) * MINUTE;
const SHIFT = NOW_MINUTE - DEPEG;
export const HOUR = 3_600_000;

export type Row = Record<string, number | string | null>;

/**
 * Volumes are float sums in another order (hour, then day): equal to 1e-9 relative; every other field
 * exactly. The partial marks are left to their own test (the brute force knows no coverage).
 */
export function roundRows(rows: Row[]) {
  return rows.map((r) => ({
    ...withoutMarks(r),
    volume: Math.round(Math.log((r.volume as number) + 1e-12) * 1e9) / 1e9,
  }));
}

/** A row without its partial mark: two reads a few ms apart see the bucket in progress covered to their own now. */
export function withoutMarks(row: Row): Row {
  const { partial: _p, covered_from: _f, covered_to: _t, ...bar } = row;
  return bar;
}

/** The recorded bars of every shipped market over the 49 hours up to the depeg, shifted to now. */
export const depegWindow = () => recordedWindow(DEPEG - 49 * HOUR, DEPEG, SHIFT);

/** A fresh database holding the window, the data app over it, and the headers of an ultra caller. */
export async function depegService(prefix: string, window: ReturnType<typeof depegWindow>) {
  const db: MigratedDatabase = await migratedDatabase(prefix);
  const deps: Deps = testDeps(db);
  const app = testApp(deps);
  const headers = await callerHeaders({
    plan: 'ultra',
    auth: 'api_key',
    account_id: 'acct_1',
    key_id: 'key_1',
  });
  for (const { market, bars } of window) await ingestBars(db.db, market.venue, market.symbol, bars);
  return { db, deps, app, headers };
}
