import { ok } from '@meridian/contracts';
import { latestPerKey, type StoredObservation } from '../../../db/repositories/feeds-observations.js';
import type { DataDeps } from '../../../deps.js';
import { dayOf, monthOf } from '../../../domain/feeds/computations.js';
import type { MetricResolver } from '../../../domain/metric-resolver.js';
import { feedAnswer, iso, noData, noEntity } from '../feed-answer.js';

/** The newest observations of a metric that share the newest timestamp (one snapshot of every key). */
async function newestSnapshot(deps: DataDeps, metric: string, now: Date) {
  const all = await latestPerKey(deps.db, metric, now);
  if (all.length === 0) return undefined;
  const newest = Math.max(...all.map((o) => o.ts.getTime()));
  return { asOf: new Date(newest), rows: all.filter((o) => o.ts.getTime() === newest) };
}

function breakdown(
  metric: string,
  source: string,
  file: string,
  method: string,
  build: (rows: StoredObservation[], asOf: Date) => Record<string, unknown>,
): MetricResolver<DataDeps> {
  return async (deps, query, hit) => {
    const checked = noEntity(query, hit);
    if (!checked.ok) return checked;
    const snap = await newestSnapshot(deps, metric, query.now);
    if (!snap) return noData(`${query.category}/${query.product}/${query.metric}`);
    return ok(
      await feedAnswer(deps, {
        data: { ...build(snap.rows, snap.asOf), unit: 'count' },
        now: query.now,
        asOf: snap.asOf,
        sources: [{ venue: source, ts: iso(snap.asOf) }],
        method,
        hit,
        replay: { source, file },
      }),
    );
  };
}

const valueOf = (rows: StoredObservation[], key: string) => rows.find((r) => r.key === key)?.value ?? null;
const without = (rows: StoredObservation[], key: string) =>
  Object.fromEntries(rows.filter((r) => r.key !== key).map((r) => [r.key, r.value]));

const PUBMED_METHOD =
  'NCBI E-utilities esearch count (retmax=0) of PubMed records by Entrez date of the newest complete day';

/** medical: PubMed counts, NICE guideline downloads and Radiopaedia articles, one snapshot each. */
export const medicalResolvers: Record<string, MetricResolver<DataDeps>> = {
  'medical/literature/publication_count': breakdown(
    'publication_count',
    'pubmed',
    'esearch_all',
    `${PUBMED_METHOD}.`,
    (rows, asOf) => ({ day: dayOf(asOf), count: valueOf(rows, 'all') }),
  ),
  'medical/literature/publication_count_by_type': breakdown(
    'publication_count',
    'pubmed',
    'esearch_all',
    `${PUBMED_METHOD}, one query per publication type ([Publication Type]); a record may carry several types, so the types need not sum to the total.`,
    (rows, asOf) => ({ day: dayOf(asOf), total: valueOf(rows, 'all'), by_type: without(rows, 'all') }),
  ),
  'medical/guidelines/guideline_downloads': breakdown(
    'guideline_downloads',
    'nice',
    'guidance_downloads',
    'NICE guidance download report: downloads per guideline over the newest reported month, and their total.',
    (rows, asOf) => ({
      period: monthOf(asOf),
      total: rows.reduce((s, r) => s + (r.value ?? 0), 0),
      by_guideline: rows
        .map((r) => ({ guidance_id: r.key, title: r.payload.title, downloads: r.value }))
        .sort((a, b) => (b.downloads ?? 0) - (a.downloads ?? 0)),
    }),
  ),
  'medical/radiology/article_count': breakdown(
    'radiology_articles',
    'radiopaedia',
    'articles_summary',
    'Radiopaedia article summary: total published reference articles.',
    (rows) => ({ count: valueOf(rows, 'all') }),
  ),
  'medical/radiology/article_count_by_category': breakdown(
    'radiology_articles',
    'radiopaedia',
    'articles_summary',
    'Radiopaedia article summary: published reference articles per system (each article is filed under one system, so the categories sum to the total).',
    (rows) => ({ total: valueOf(rows, 'all'), by_category: without(rows, 'all') }),
  ),
};
