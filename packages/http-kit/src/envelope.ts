export interface Source {
  venue: string;
  ts: string;
  symbol?: string;
}

export interface Meta {
  as_of: string;
  venues: string[];
  staleness_ms: number;
  confidence: number;
  [key: string]: unknown;
}

export interface Provenance {
  sources: Source[];
  method: string;
  [key: string]: unknown;
}

export interface Envelope<T> {
  data: T;
  meta: Meta;
  provenance: Provenance;
}

/**
 * The `{data, meta, provenance}` envelope. Portal answers built from our own records carry the
 * service as their only source and full confidence, with no staleness.
 */
export function envelope<T>(
  data: T,
  meta: Partial<Meta> = {},
  provenance: Partial<Provenance> = {},
): Envelope<T> {
  const asOf = meta.as_of ?? new Date().toISOString();
  return {
    data,
    meta: { venues: [], staleness_ms: 0, confidence: 1, ...meta, as_of: asOf },
    provenance: { sources: [], method: 'read from the service of record', ...provenance },
  };
}
