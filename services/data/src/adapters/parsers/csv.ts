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

/**
 * CSV rows as objects keyed by the header. Filled key by key in the header's order, so every row
 * shares one object shape and no [key, value] pair is built per cell (the options chain is parsed
 * again at each minute's replay).
 */
export function csvRecords(text: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(text);
  if (!header) return [];
  const keys = header.map((h) => h.trim());
  return rows.map((r) => {
    const record: Record<string, string> = {};
    for (let i = 0; i < keys.length; i++) record[keys[i]!] = (r[i] ?? '').trim();
    return record;
  });
}
