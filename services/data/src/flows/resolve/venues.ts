import type { CatalogHit, StoredVenues } from '@meridian/contracts';
import { marketsOf } from '../../db/repositories/candles.js';
import { latestFunding, latestPerpMarks } from '../../db/repositories/feeds-derivatives.js';
import type { DataDeps } from '../../deps.js';

/**
 * The venues of a product stored beyond the catalogue's, with the entities each lists: ingestion
 * binds markets, not venues (README, "Ingestion"), so a new venue's book is served with `source=`
 * before the catalogue names it. Asked only for a source the catalogue does not name.
 */
export async function storedVenues(deps: DataDeps, hit: CatalogHit, now: Date): Promise<StoredVenues> {
  const key = `${hit.product.category}/${hit.product.product}`;
  const base = (hit.product.default_entity ?? '').split('-')[0]!;
  const listed: Record<string, string[]> = {};
  const add = (venue: string, entity: string) => (listed[venue] ??= []).push(entity);
  if (key === 'crypto/spot') for (const m of await marketsOf(deps.db, base)) add(m.venue, m.symbol);
  if (key === 'crypto/futures') {
    const [marks, funding] = await Promise.all([
      latestPerpMarks(deps.db, base, now),
      latestFunding(deps.db, base, now),
    ]);
    // Futures combine every perp of a base into BASE-USD, whatever its quote.
    for (const m of [...marks, ...funding]) listed[m.venue] = hit.product.entities;
  }
  return listed;
}
