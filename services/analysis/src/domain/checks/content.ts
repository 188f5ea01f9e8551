import type { Finding } from '@meridian/contracts';
import type { Response, TextResource } from '../observations.js';
import { fail, pass, quote } from './finding.js';

const attr = (tag: string, name: string): string | null => {
  const m = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(tag);
  return m ? (m[1] ?? m[2] ?? m[3] ?? '') : null;
};

/** `<script src>` tags loaded from another host, with and without integrity. */
export function thirdPartyScripts(
  html: string,
  pageUrl: string,
): { src: string; integrity: boolean; https: boolean }[] {
  const page = new URL(pageUrl);
  const out: { src: string; integrity: boolean; https: boolean }[] = [];
  for (const m of html.matchAll(/<script\b[^>]*>/gi)) {
    const src = attr(m[0], 'src');
    if (!src) continue;
    let url: URL;
    try {
      url = new URL(src, page);
    } catch {
      continue;
    }
    if (url.host === page.host) continue;
    out.push({ src: url.href, integrity: !!attr(m[0], 'integrity'), https: url.protocol === 'https:' });
  }
  return out;
}

/** Subresource Integrity on third-party scripts (HTTP Observatory "subresource-integrity"). */
export function sriChecks(page: Response): Finding[] {
  const scripts = thirdPartyScripts(page.body, page.url);
  if (scripts.length === 0)
    return [
      pass(
        'content.sri.none',
        'content',
        'No third-party scripts',
        'all scripts are served by the site itself',
      ),
    ];
  const plain = scripts.filter((s) => !s.https);
  if (plain.length)
    return [
      fail(
        'content.sri.insecure',
        'content',
        'Third-party scripts are loaded over plain HTTP',
        'high',
        plain.map((s) => s.src).join(', '),
        'Load every script over HTTPS and add an integrity attribute.',
        -50,
      ),
    ];
  const missing = scripts.filter((s) => !s.integrity);
  if (missing.length)
    return [
      fail(
        'content.sri.missing',
        'content',
        'Third-party scripts without Subresource Integrity',
        'low',
        missing.map((s) => s.src).join(', '),
        'Add `integrity="sha384-…"` and `crossorigin="anonymous"` to third-party script tags.',
        -5,
      ),
    ];
  return [
    pass(
      'content.sri.ok',
      'content',
      'Every third-party script carries Subresource Integrity',
      scripts.map((s) => s.src).join(', '),
      5,
    ),
  ];
}

/** Title, language, description, viewport, page weight and time to first byte. */
export function pageChecks(page: Response): Finding[] {
  return [...headChecks(page.body), ...deliveryChecks(page)];
}

/** Title, language, description and viewport: what the document says of itself. */
function headChecks(html: string): Finding[] {
  const out: Finding[] = [];
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1]?.trim() ?? '';
  out.push(
    title
      ? pass('content.title.present', 'content', 'The page has a title', quote(title, 120))
      : fail(
          'content.title.missing',
          'content',
          'The page has no title',
          'low',
          'no <title>',
          'Give the page a descriptive <title>.',
        ),
  );
  const htmlTag = /<html\b[^>]*>/i.exec(html)?.[0] ?? '';
  const lang = attr(htmlTag, 'lang');
  out.push(
    lang
      ? pass('content.lang.present', 'content', 'The page declares its language', `lang="${lang}"`)
      : fail(
          'content.lang.missing',
          'content',
          'The page does not declare its language',
          'low',
          htmlTag || 'no <html> tag',
          'Add `lang` to the <html> element, e.g. `<html lang="en">`.',
        ),
  );
  const metas = [...html.matchAll(/<meta\b[^>]*>/gi)].map((m) => m[0]);
  const meta = (name: string) => metas.find((t) => attr(t, 'name')?.toLowerCase() === name);
  const description = meta('description');
  out.push(
    description && attr(description, 'content')
      ? pass(
          'content.description.present',
          'content',
          'The page has a meta description',
          quote(attr(description, 'content')!, 160),
        )
      : fail(
          'content.description.missing',
          'content',
          'The page has no meta description',
          'info',
          'no <meta name="description">',
          'Add a <meta name="description"> summarising the page.',
        ),
  );
  const viewport = meta('viewport');
  out.push(
    viewport
      ? pass(
          'content.viewport.present',
          'content',
          'The page sets a viewport for phones',
          attr(viewport, 'content') ?? '',
        )
      : fail(
          'content.viewport.missing',
          'content',
          'The page sets no viewport',
          'low',
          'no <meta name="viewport">',
          'Add `<meta name="viewport" content="width=device-width, initial-scale=1">`.',
        ),
  );
  return out;
}

/** Page weight and time to first byte: how the document is served. */
function deliveryChecks(page: Response): Finding[] {
  const out: Finding[] = [];
  const kb = Math.round(page.bytes / 1024);
  out.push(
    page.bytes > 2 * 1024 * 1024 || page.truncated
      ? fail(
          'content.size.large',
          'content',
          'The HTML document is heavy',
          'low',
          `${kb} KiB${page.truncated ? ' (cut at the scanner limit)' : ''}`,
          'Keep the HTML under 2 MiB: paginate, lazy-load, compress.',
        )
      : pass('content.size.ok', 'content', 'The HTML document size is reasonable', `${kb} KiB`),
  );
  out.push(
    page.ttfbMs > 800
      ? fail(
          'content.ttfb.slow',
          'content',
          'Slow time to first byte',
          'low',
          `${page.ttfbMs} ms`,
          'Cache the page or speed up the server so the first byte comes within 800 ms.',
        )
      : pass('content.ttfb.ok', 'content', 'Time to first byte is fast', `${page.ttfbMs} ms`),
  );
  return out;
}

/** robots.txt and the sitemap (from robots.txt or /sitemap.xml). */
export function crawlChecks(robots: TextResource | null, sitemap: TextResource | null): Finding[] {
  const out: Finding[] = [];
  const robotsOk =
    robots !== null &&
    robots.status === 200 &&
    /^\s*(user-agent|disallow|allow|sitemap)\s*:/im.test(robots.body);
  out.push(
    robotsOk
      ? pass('content.robots.present', 'content', 'robots.txt is published', quote(robots.body.trim(), 200))
      : fail(
          'content.robots.missing',
          'content',
          'No robots.txt',
          'info',
          robots ? `HTTP ${robots.status}` : 'not fetched',
          'Publish /robots.txt (and name your sitemap in it).',
        ),
  );
  const sitemapOk =
    sitemap !== null && sitemap.status === 200 && /<(urlset|sitemapindex)\b/i.test(sitemap.body);
  out.push(
    sitemapOk
      ? pass('content.sitemap.present', 'content', 'A sitemap is published', sitemap.url)
      : fail(
          'content.sitemap.missing',
          'content',
          'No sitemap',
          'info',
          sitemap ? `${sitemap.url}: HTTP ${sitemap.status}` : 'not fetched',
          'Publish /sitemap.xml and reference it from robots.txt.',
        ),
  );
  return out;
}
