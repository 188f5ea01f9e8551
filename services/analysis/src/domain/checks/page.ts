import type { Headers } from '../observations.js';

/** One header as a single string ('' when absent); repeated headers are joined with commas. */
export function headerOf(headers: Headers, name: string): string {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
}

/** Every value of one header, repeated headers kept apart. */
export function headerValues(headers: Headers, name: string): string[] {
  const value = headers[name.toLowerCase()];
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

export interface MetaTag {
  name: string | null;
  httpEquiv: string | null;
  content: string | null;
}

const attribute = (tag: string, name: string): string | null => {
  const m = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(tag);
  return m ? (m[1] ?? m[2] ?? m[3] ?? '') : null;
};

/**
 * The `<meta>` tags of a page. A regular expression, not a DOM: enough for the attributes read
 * here, and the page is untrusted text that should cost nothing to read.
 */
export function metaTags(html: string): MetaTag[] {
  const out: MetaTag[] = [];
  for (const m of html.matchAll(/<meta\b[^>]*>/gi)) {
    const lower = (value: string | null) => value?.trim().toLowerCase() ?? null;
    out.push({
      name: lower(attribute(m[0], 'name')),
      httpEquiv: lower(attribute(m[0], 'http-equiv')),
      content: attribute(m[0], 'content'),
    });
  }
  return out;
}
