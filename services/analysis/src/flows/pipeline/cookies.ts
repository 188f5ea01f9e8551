import { cookieChecks } from '../../domain/checks/http.js';
import type { Stage } from './context.js';

/** Every Set-Cookie line seen: redirects, the page, the login. */
export const cookiesStage: Stage = {
  name: 'cookies',
  run: async (ctx) => cookieChecks(ctx.seenCookies),
};
