/**
 * The order of the text our answers sort by (ISO times, ids, names): by UTF-16 code units, the
 * same on every machine whatever its locale. Not localeCompare: its first call builds an ICU
 * collator, which maps about 2 MB of ICU data into the process for good (docs/memory.md), to
 * order strings that have no language.
 */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
