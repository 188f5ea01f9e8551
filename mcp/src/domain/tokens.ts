import { MAX_RESPONSE_TOKENS } from '@meridian/contracts';

/** ≈ 4 characters of JSON per token, as the data service counts (services/data/README.md). */
export const CHARS_PER_TOKEN = 4;

/** The budget of a tool call that names none: about a page of a host's context. */
export const DEFAULT_MAX_RESPONSE_TOKENS = 4000;

export const TOKEN_BOUNDS = MAX_RESPONSE_TOKENS;

export interface Fitted<T> {
  rows: T[];
  /** Index of the first row left out, or null when every row from `offset` fitted. */
  next: number | null;
}

/**
 * Whole rows from `offset` that fit in `budgetChars` beside `overheadChars` (the answer without
 * its rows); at least one row is kept, so a cursor always moves forward.
 */
export function fitRows<T>(
  rows: readonly T[],
  offset: number,
  budgetChars: number,
  overheadChars: number,
): Fitted<T> {
  const kept: T[] = [];
  let used = overheadChars;
  for (let i = offset; i < rows.length; i++) {
    const size = JSON.stringify(rows[i]).length + 1;
    if (kept.length > 0 && used + size > budgetChars) return { rows: kept, next: i };
    kept.push(rows[i]!);
    used += size;
  }
  return { rows: kept, next: null };
}
