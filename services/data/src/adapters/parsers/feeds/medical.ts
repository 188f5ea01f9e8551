import type { IngestBatchInput } from '@meridian/contracts';
import type { ReplayClock } from '../../../domain/replay-clock.js';
import { csvRecords } from '../csv.js';
import { observationBatch } from './observations.js';

/** NCBI E-utilities esearch JSON with retmax=0: esearchresult.count for one query. */
export function parsePubmedCount(
  text: string,
  key: string,
  day: string,
  clock: ReplayClock,
): IngestBatchInput {
  const doc = JSON.parse(text) as {
    esearchresult?: { count?: string; querytranslation?: string; ERROR?: string };
  };
  const result = doc.esearchresult;
  // NCBI answers a refused query with 200 and esearchresult.ERROR (or no esearchresult at all).
  if (!result || !/^\d+$/.test(result.count ?? ''))
    throw new Error(`esearch answered no count${result?.ERROR ? `: ${result.ERROR.slice(0, 100)}` : ''}`);
  return observationBatch('pubmed', [
    {
      key,
      metric: 'publication_count',
      ts: clock(`${day}T00:00:00Z`),
      value: Number(result.count),
      payload: { query: result.querytranslation },
    },
  ]);
}

/** NICE guidance download report CSV: guidance_id,title,month,downloads (one month). */
export function parseNiceDownloads(text: string, clock: ReplayClock): IngestBatchInput {
  return observationBatch(
    'nice',
    csvRecords(text).map((r) => ({
      key: r.guidance_id!,
      metric: 'guideline_downloads',
      ts: clock(`${r.month}-01T00:00:00Z`),
      value: Number(r.downloads),
      payload: { title: r.title },
    })),
  );
}

/** Radiopaedia article summary: total and per-system counts (each article filed under one system). */
export function parseRadiopaediaSummary(text: string, clock: ReplayClock): IngestBatchInput {
  const doc = JSON.parse(text) as {
    generated_at: string;
    articles: { total: number; by_system: { system: string; count: number }[] };
  };
  const ts = clock(doc.generated_at);
  return observationBatch('radiopaedia', [
    { key: 'all', metric: 'radiology_articles', ts, value: doc.articles.total },
    ...doc.articles.by_system.map((s) => ({
      key: s.system,
      metric: 'radiology_articles',
      ts,
      value: s.count,
    })),
  ]);
}
