import { corsPreflight } from '../../adapters/scanner/cors.js';
import { PREFLIGHT_ORIGIN } from '../../domain/checks/cors.js';
import { headerChecks, isServerError, notGradedOnError } from '../../domain/checks/http.js';
import type { Stage } from './context.js';

/** The security headers of the home page (https preferred), with one CORS preflight of it. */
export const headersStage: Stage = {
  name: 'headers',
  run: async (ctx) => {
    const page = ctx.page!;
    if (isServerError(page)) return [notGradedOnError('headers', page)];
    const preflight = await corsPreflight(ctx.options, page.url, PREFLIGHT_ORIGIN);
    return headerChecks(page, preflight && { ...preflight });
  },
};
