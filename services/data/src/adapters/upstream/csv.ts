import { parse } from 'csv-parse/sync';

/**
 * Rows of a CSV text (RFC 4180: quoted fields may hold commas, quotes and line breaks), header first;
 * blank lines and rows of empty fields dropped. csv-parse does the parsing: recordings and imported
 * files come from many hands, and a hand-rolled split on commas broke on the first quoted field.
 */
export function parseCsv(text: string): string[][] {
  return parse(text, {
    bom: true,
    // Files edited by hand mix line endings; any of them ends a record.
    record_delimiter: ['\r\n', '\n', '\r'],
    relax_column_count: true,
    skip_empty_lines: true,
    skip_records_with_empty_values: true,
  });
}

/** CSV rows as objects keyed by the header. */
export function csvRecords(text: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(text);
  if (!header) return [];
  return rows.map((r) => Object.fromEntries(header.map((h, i) => [h.trim(), (r[i] ?? '').trim()])));
}
