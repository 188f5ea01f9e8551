import { ok, type CatalogHit } from '@meridian/contracts';
import { observationHistory, type StoredObservation } from '../../../db/repositories/feeds-observations.js';
import type { DataDeps } from '../../../deps.js';
import {
  computedSeries,
  pointsOf,
  type ComputedRow,
  type Point,
} from '../../../domain/feeds/computations.js';
import type { MetricAnswer, MetricQuery, MetricResolver } from '../../../domain/metric-resolver.js';
import { entityOf, feedAnswer, iso, noData, sourceOf } from '../feed-answer.js';

/** Rows of a history page; a series answer continues with a cursor {before: ts}. */
export const PAGE_SIZE = 100;

/** How one metric maps onto stored observations of one upstream. */
export interface LatestSpec {
  source: string;
  /** Part of the recording's file name, to find its replay marker. */
  file: string;
  metric: string;
  /** The observation key for the entity (or the fixed key of a product without entities). */
  key: (entity: string | undefined) => string;
  unit: string;
  method: string;
  /** The entity used when the query names none. */
  defaultEntity?: string;
  /** Object-shaped metrics build their object from the newest observations; scalar ones answer the value. */
  object?: (recent: StoredObservation[], entity: string | undefined) => Record<string, unknown> | undefined;
  /**
   * For a metric computed from stored points rather than stored itself (a change, a growth): its row at
   * the newest of the points given. series=true answers one row per stored point, so that the history
   * is of the metric in its unit, never of the points it is computed from.
   */
  computed?: (recent: Point[]) => ComputedRow | undefined;
  /** How many recent observations `object` and `computed` need (newest first); 1 unless said. */
  take?: number;
}

export function historyRow(o: StoredObservation): Record<string, unknown> {
  return { ts: iso(o.ts), value: o.value, ...o.payload };
}

/** A history page resumes strictly before the timestamp of a row (the oldest one the caller got). */
export const resumeBeforeTs = (row: Record<string, unknown>) => ({ before: String(row.ts) });

/**
 * Reads the history page a series query asks for: the newest PAGE_SIZE observations before the cursor,
 * returned ascending in time like every series (so that truncation drops the oldest). A computed
 * metric reads the `take - 1` older points its oldest row needs too, and answers its own rows; a
 * point whose base is missing (the oldest ones) has none.
 */
export async function historyPage(
  deps: DataDeps,
  spec: Pick<LatestSpec, 'metric' | 'computed' | 'take'>,
  key: string,
  query: MetricQuery,
): Promise<{ rows: Record<string, unknown>[]; next: Record<string, unknown> | null; newest?: Date }> {
  const before = typeof query.cursor?.before === 'string' ? new Date(query.cursor.before) : undefined;
  const take = spec.computed ? (spec.take ?? 1) : 1;
  const list = await observationHistory(deps.db, spec.metric, key, query.now, PAGE_SIZE + take, before);
  const page = list.slice(0, PAGE_SIZE);
  const next = list.length > PAGE_SIZE ? { before: iso(page[page.length - 1]!.ts) } : null;
  const rows: Record<string, unknown>[] = spec.computed
    ? computedSeries(pointsOf(list), pointsOf(page).length, take, spec.computed)
    : page.map(historyRow);
  const newest = rows[0]?.ts;
  return { rows: rows.reverse(), next, newest: newest === undefined ? undefined : new Date(String(newest)) };
}

/** The resolver of a metric answered by the newest observation of one key (history when series=true). */
export function latestResolver(spec: LatestSpec): MetricResolver<DataDeps> {
  return async (deps, query, hit) => {
    const entity = entityOf(query, hit, spec.defaultEntity);
    if (!entity.ok) return entity;
    const source = sourceOf(query, hit);
    if (!source.ok) return source;
    const key = spec.key(entity.value);
    const what = `${query.category}/${query.product}/${query.metric}${entity.value ? ` ${entity.value}` : ''}`;
    if (query.series) {
      const page = await historyPage(deps, spec, key, query);
      if (!page.newest) return noData(what);
      const rows = spec.computed
        ? `the metric's value (in ${spec.unit}) computed at every stored point that has its base`
        : 'every stored observation';
      return ok(
        await feedAnswer(deps, {
          data: page.rows,
          rows: page.rows,
          nextCursor: page.next,
          resumeBefore: resumeBeforeTs,
          now: query.now,
          asOf: page.newest,
          sources: [
            {
              venue: spec.source,
              ts: iso(page.newest),
              ...(entity.value ? { symbol: entity.value } : {}),
            },
          ],
          method: `${spec.method} Series: ${rows}, ascending in time, ${PAGE_SIZE} points per page walking back in time. Unit: ${spec.unit}.`,
          hit,
          replay: { source: spec.source, file: spec.file },
        }),
      );
    }
    const recent = await observationHistory(deps.db, spec.metric, key, query.now, spec.take ?? 1);
    const obs = recent[0];
    if (!obs) return noData(what);
    const data = spec.object ? spec.object(recent, entity.value) : obs.value;
    if (data === undefined) return noData(`${what} (too few observations to compute it)`);
    return ok(await latestAnswer(deps, spec, obs, data, entity.value, query, hit));
  };
}

async function latestAnswer(
  deps: DataDeps,
  spec: LatestSpec,
  obs: StoredObservation,
  data: unknown,
  entity: string | undefined,
  query: MetricQuery,
  hit: CatalogHit,
): Promise<MetricAnswer> {
  return feedAnswer(deps, {
    data: spec.object ? { ...(data as Record<string, unknown>), unit: spec.unit } : data,
    now: query.now,
    asOf: obs.ts,
    sources: [{ venue: spec.source, ts: iso(obs.ts), ...(entity ? { symbol: entity } : {}) }],
    method: `${spec.method} Unit: ${spec.unit}.`,
    hit,
    replay: { source: spec.source, file: spec.file },
  });
}
