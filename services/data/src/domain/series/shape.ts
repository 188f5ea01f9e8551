/** Rows per page of a series read. */
export const PAGE_SIZE = 500;
/** About four characters of JSON per token, the usual estimate for English-like text and numbers. */
export const CHARS_PER_TOKEN = 4;

/** Why `fields` cannot be kept: the names that are no column of the answer (undefined: all are). */
export function unknownFields(columns: string[], fields: string[] | undefined): string | undefined {
  const unknown = (fields ?? []).filter((f) => !columns.includes(f));
  if (unknown.length === 0) return undefined;
  return `fields: unknown column ${unknown.join(', ')}; columns are ${columns.join(', ')}`;
}

/**
 * The rows as the answer writes them, in one pass: only the named columns (checked by unknownFields
 * first), in the order asked; `table`: as arrays of the columns' values (a missing value null), else
 * as objects.
 */
export function shapeRows(
  rows: Record<string, unknown>[],
  columns: string[],
  fields: string[] | undefined,
  table: boolean,
): { rows: unknown[]; columns: string[] } {
  const kept = fields ?? columns;
  if (table) return { rows: rows.map((r) => kept.map((c) => r[c] ?? null)), columns: kept };
  if (!fields) return { rows, columns };
  return { rows: rows.map((r) => Object.fromEntries(fields.map((f) => [f, r[f]]))), columns: kept };
}

export interface Truncation {
  /** Rows kept: the newest ones, in ascending order. */
  kept: number;
  dropped: number;
}

/**
 * Drops whole rows, oldest first, until the rows fit `budgetChars` characters of JSON (each row costs
 * its serialised length plus a comma); the newest row is always kept, so that a page makes progress
 * even when one row alone exceeds the budget (rows are ascending in time and the cursor walks back in
 * time, so the dropped rows are exactly the ones the next page starts with).
 */
export function fitRows(rows: unknown[], budgetChars: number): Truncation {
  let budget = budgetChars;
  let kept = 0;
  for (let i = rows.length - 1; i >= 0; i--) {
    budget -= JSON.stringify(rows[i]).length + (kept > 0 ? 1 : 0);
    if (budget < 0 && kept > 0) break;
    kept++;
  }
  return { kept, dropped: rows.length - kept };
}

/**
 * The page of a series that fits `maxTokens` as a whole answer. `page(dropped, overBudget)` builds the
 * serialised answer with the oldest `dropped` rows left out (`overBudget`: even the one row kept does
 * not fit, the hint says so); `shaped` are the rows as the answer writes them. The envelope without rows
 * (meta, provenance, cursor, hint) is measured from the answer itself, rows are fitted into the rest,
 * and the result is checked both ways (the hint and the cursor change length with the count).
 */
export function fitAnswer(
  shaped: unknown[],
  maxTokens: number | undefined,
  page: (dropped: number, overBudget: boolean) => string,
): { dropped: number; body: string } {
  const whole = page(0, false);
  const limit = maxTokens === undefined ? Infinity : maxTokens * CHARS_PER_TOKEN;
  if (whole.length <= limit || shaped.length <= 1) return { dropped: 0, body: whole };
  const newest = shaped.length - 1;
  const envelope = page(newest, false).length - JSON.stringify(shaped[newest]).length;
  let dropped = fitRows(shaped, limit - envelope).dropped;
  let body = page(dropped, false);
  if (body.length > limit) while (body.length > limit && dropped < newest) body = page(++dropped, false);
  else
    for (let more = dropped > 1 ? page(dropped - 1, false) : whole; dropped > 0 && more.length <= limit;) {
      body = more;
      dropped--;
      if (dropped > 0) more = dropped > 1 ? page(dropped - 1, false) : whole;
    }
  if (body.length > limit) body = page(dropped, true);
  return { dropped, body };
}
