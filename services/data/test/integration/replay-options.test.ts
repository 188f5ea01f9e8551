import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { findMetric } from '@meridian/contracts';
import { replayedSpotAt } from '../../src/jobs/spot/market-replay.js';
import { refreshFreshFeeds, type Plays } from '../../src/jobs/feeds/recorded-feeds.js';
import { feedResolvers } from '../../src/flows/resolve/index.js';
import { migratedDatabase, type MigratedDatabase } from '../support/db.js';
import { testDeps } from '../support/app.js';

interface Option {
  instrument: string;
  expiry: string;
  strike: number;
}

const HOUR = 3_600_000;
const hit = findMetric('crypto', 'options', 'chain')!;

/**
 * The replayed chain is mapped onto the replay calendar once per replay day (the recorded snapshot was
 * taken at 23:22 UTC, so a replay day runs from 23:22 to 23:22): however often its marks are played
 * again, an instrument keeps its name, strike and expiry, expiries stay at 08:00 UTC, and an expired
 * one leaves the chain.
 */
describe('the replayed options chain keeps its instruments for a replay day', () => {
  let db: MigratedDatabase;
  let deps: ReturnType<typeof testDeps>;
  const plays: Plays = new Map();

  beforeAll(async () => {
    db = await migratedDatabase('data_replay_options');
    deps = testDeps(db, { INGEST_MODE: 'replay' });
  });
  afterAll(() => db.drop());

  async function chainAt(at: string): Promise<Option[]> {
    const now = new Date(at);
    await refreshFreshFeeds(deps, now, replayedSpotAt(), plays);
    const result = await feedResolvers['crypto/options/chain']!(
      deps,
      { category: 'crypto', product: 'options', metric: 'chain', entity: 'BTC', series: false, now },
      hit,
    );
    if (!result.ok) throw new Error(`${result.code}: ${result.detail}`);
    return (result.value.data as { options: Option[] }).options;
  }

  const keyed = (options: Option[]) =>
    Object.fromEntries(options.map((o) => [o.instrument, `${o.strike} ${o.expiry}`]));

  it('answers the same instruments, strikes and expiries at every play of one replay day', async () => {
    const noon = await chainAt('2026-12-14T12:00:00Z');
    const minuteLater = await chainAt('2026-12-14T12:01:00Z');
    const evening = await chainAt('2026-12-14T19:30:00Z');
    expect(noon.length).toBeGreaterThan(200);
    expect(keyed(minuteLater)).toEqual(keyed(noon));
    expect(keyed(evening)).toEqual(keyed(noon));
  });

  it('expires at 08:00 UTC, never before now: the options past their expiry have left the chain', async () => {
    const at = '2026-12-15T09:00:00Z';
    const chain = await chainAt(at);
    expect(chain.length).toBeGreaterThan(200);
    for (const o of chain) {
      expect(o.expiry.slice(11)).toBe('08:00:00.000Z');
      expect(Date.parse(o.expiry)).toBeGreaterThan(Date.parse(at));
    }
    // The replay day of 2026-12-14 23:22: the recording's nearest expiry (22 May) lands on 15 Dec 08:00,
    // an hour before `at`, so its 58 options are gone; the next one (23 May) is 16 Dec 08:00.
    expect(chain.some((o) => o.expiry.startsWith('2026-12-15'))).toBe(false);
    expect(chain.some((o) => o.expiry === '2026-12-16T08:00:00.000Z')).toBe(true);
    expect(Date.parse(chain[0]!.expiry) - Date.parse(at)).toBeLessThan(24 * HOUR);
  });
});
