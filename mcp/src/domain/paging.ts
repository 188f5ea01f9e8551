import { CHARS_PER_TOKEN, fitRows } from './tokens.js';

export type Envelope = Record<string, unknown> & { data?: unknown; meta?: Record<string, unknown> };

/** Where the rows of an answer are: `data` itself, or its longest array field (options, venues, events). */
function rowsOf(
  data: unknown,
): { rows: unknown[]; put: (rows: unknown[]) => unknown; name: string } | undefined {
  if (Array.isArray(data)) return { rows: data, put: (rows) => rows, name: 'rows' };
  if (!data || typeof data !== 'object') return undefined;
  const record = data as Record<string, unknown>;
  let best: string | undefined;
  for (const [name, value] of Object.entries(record))
    if (Array.isArray(value) && (!best || value.length > (record[best] as unknown[]).length)) best = name;
  if (best === undefined) return undefined;
  return { rows: record[best] as unknown[], put: (rows) => ({ ...record, [best]: rows }), name: best };
}

/** Room the paging fields take at most, so the page measured before they are written still fits. */
const PAGING_RESERVE = 420;

/**
 * One page of an answer that is not a series (the catalogue, an options chain, an object with a
 * list): whole rows from `offset` that keep the serialised answer within `maxTokens`, with
 * meta.truncated, meta.next_cursor and a one-line hint. `cursorAt` writes the cursor of a row.
 */
export function pageOf(
  answer: Envelope,
  offset: number,
  maxTokens: number,
  cursorAt: (offset: number) => string,
): Envelope {
  const budget = maxTokens * CHARS_PER_TOKEN;
  const meta = { ...(answer.meta ?? {}) };
  const found = rowsOf(answer.data);
  if (!found) {
    const fits = JSON.stringify(answer).length + PAGING_RESERVE <= budget;
    return {
      ...answer,
      meta: {
        ...meta,
        truncated: false,
        next_cursor: null,
        hint: fits
          ? 'Complete answer.'
          : `Complete answer, larger than max_response_tokens=${maxTokens}: it has no rows to drop.`,
      },
    };
  }
  const empty = { ...answer, data: found.put([]) };
  const overhead = JSON.stringify(empty).length + PAGING_RESERVE;
  const start = Math.min(offset, found.rows.length);
  const page = fitRows(found.rows, start, budget, overhead);
  const total = found.rows.length;
  const end = start + page.rows.length;
  const hint =
    page.next !== null
      ? `Truncated to ${found.name} ${start + 1}-${end} of ${total} to fit max_response_tokens=${maxTokens}; call again with cursor=meta.next_cursor for the rest.`
      : start > 0
        ? `Last page: ${found.name} ${start + 1}-${end} of ${total}.`
        : `Complete answer: ${total} ${found.name}.`;
  return {
    ...answer,
    data: found.put(page.rows),
    meta: {
      ...meta,
      truncated: page.next !== null,
      next_cursor: page.next !== null ? cursorAt(page.next) : null,
      hint,
      returned: page.rows.length,
      total,
      has_more: page.next !== null,
    },
  };
}

/** The paging fields of a series answer of the data API, always present (it omits some when complete). */
export function seriesPaging(answer: Envelope): Envelope {
  const meta = { ...(answer.meta ?? {}) };
  const next = typeof meta.next_cursor === 'string' ? meta.next_cursor : null;
  const returned = typeof meta.returned === 'number' ? meta.returned : undefined;
  const fallback =
    next !== null
      ? `Page of ${returned ?? 'the'} newest rows; older rows with cursor=meta.next_cursor.`
      : `Complete: ${returned ?? 'all'} rows.`;
  return {
    ...answer,
    meta: {
      ...meta,
      truncated: meta.truncated === true,
      next_cursor: next,
      hint: typeof meta.hint === 'string' && meta.hint.length > 0 ? meta.hint : fallback,
    },
  };
}
