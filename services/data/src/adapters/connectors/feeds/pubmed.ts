import { parsePubmedCount } from '../../parsers/feeds/medical.js';
import { PUBMED_TYPES } from '../../../domain/feeds/observation-keys.js';
import { recordedTime } from '../../../domain/replay-clock.js';
import type { ConnectorDefinition } from '../connector.js';

/** The PubMed publication type of each key of medical/literature (as [Publication Type] spells it). */
const PUBLICATION_TYPE: Record<string, string> = {
  review: 'review',
  clinical_trial: 'clinical trial',
  randomized_controlled_trial: 'randomized controlled trial',
  meta_analysis: 'meta-analysis',
  case_reports: 'case reports',
};

/** The esearch term counting the records of `day` (YYYY-MM-DD) by Entrez date, of one type or all. */
export function pubmedTerm(day: string, type: string): string {
  const entry = `"${day.replaceAll('-', '/')}"[Date - Entry]`;
  return type === 'all' ? entry : `${entry} AND "${PUBLICATION_TYPE[type]}"[Publication Type]`;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * NCBI E-utilities esearch counts (retmax=0) of the newest complete UTC day, one request per type,
 * through the parser of the recordings (recordings/pubmed/). NCBI asks for `tool` and `email` and
 * allows 3 requests/s (10 with NCBI_API_KEY): the requests go one after another, spaced to stay under.
 * Counts of a past day settle within hours of indexing: a poll every 3 h. A day without a single
 * record is not indexed yet: the poll answers empty rather than storing zeros.
 */
export const pubmed: ConnectorDefinition = {
  name: 'pubmed',
  products: ['medical/literature'],
  url: 'https://eutils.ncbi.nlm.nih.gov',
  cadenceMs: 3 * 60 * 60_000,
  note: 'NCBI E-utilities (public; counts are facts, PubMed data is free of use restrictions); NCBI_API_KEY optional',
  open: (url, keys) => async (http, now) => {
    const day = new Date(now.getTime() - 86_400_000).toISOString().slice(0, 10);
    const spacing = keys.NCBI_API_KEY ? 110 : 350;
    const batches = [];
    for (const [i, type] of ['all', ...PUBMED_TYPES].entries()) {
      if (i > 0) await sleep(spacing);
      const q = new URLSearchParams({
        db: 'pubmed',
        term: pubmedTerm(day, type),
        retmax: '0',
        retmode: 'json',
        tool: 'meridian-data',
      });
      if (keys.INGEST_CONTACT?.includes('@')) q.set('email', keys.INGEST_CONTACT);
      if (keys.NCBI_API_KEY) q.set('api_key', keys.NCBI_API_KEY);
      const text = await http.text(`${url}/entrez/eutils/esearch.fcgi?${q}`);
      const batch = parsePubmedCount(text, type, day, recordedTime);
      // No record at all for a whole day: PubMed has not indexed it yet, which is no count of zero.
      if (type === 'all' && (batch.rows[0] as { value?: number } | undefined)?.value === 0) return [];
      batches.push(batch);
    }
    return batches;
  },
};
