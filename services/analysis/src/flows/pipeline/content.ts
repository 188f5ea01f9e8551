import { guardedFetch } from '../../adapters/scanner/http.js';
import { crawlChecks, pageChecks, sriChecks } from '../../domain/checks/content.js';
import { isServerError, notGradedOnError } from '../../domain/checks/http.js';
import { mainOrigin, type Stage } from './context.js';
import { fetchAt, textResource } from './files.js';

/** The home page's content (SRI, title, language, size, first byte), robots.txt and the sitemap. */
export const contentStage: Stage = {
  name: 'content',
  async run(ctx) {
    if (isServerError(ctx.page!)) return [notGradedOnError('content', ctx.page!)];
    const origin = mainOrigin(ctx);
    const robots = await fetchAt(ctx, origin, '/robots.txt').then(textResource, () => null);
    const named = robots?.status === 200 ? /^\s*sitemap\s*:\s*(\S+)/im.exec(robots.body)?.[1] : undefined;
    let sitemapUrl = `${origin}/sitemap.xml`;
    if (named) {
      try {
        if (new URL(named).hostname === ctx.domain) sitemapUrl = new URL(named).href;
      } catch {
        // not a URL: the default place
      }
    }
    const sitemap = await guardedFetch(ctx.options, sitemapUrl).then(textResource, () => null);
    return [...pageChecks(ctx.page!), ...sriChecks(ctx.page!), ...crawlChecks(robots, sitemap)];
  },
};
