import type { OPTION_TYPES } from './catalog-enums.js';

export type OptionType = (typeof OPTION_TYPES)[number];

/**
 * option_chain's option_type, applied to the chain before a page is cut: keeps the options of
 * that type; any other shape of data, or no type asked for, passes unchanged.
 */
export function onlyOptionType(optionType: OptionType | undefined): (data: unknown) => unknown {
  return (data: unknown) => {
    if (!optionType || !data || typeof data !== 'object') return data;
    const record = data as { options?: Array<{ option_type?: string }> };
    if (!Array.isArray(record.options)) return data;
    return { ...record, options: record.options.filter((o) => o.option_type === optionType) };
  };
}
