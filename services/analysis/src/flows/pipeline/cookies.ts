import { cookieChecks } from '../../domain/checks/cookies.js';
import { mainOrigin, type Stage } from './context.js';

/**
 * Every Set-Cookie line seen: redirects, the page, the login. Whether the site answers https at
 * all decides what a Secure cookie means (a browser drops one set over http).
 */
export const cookiesStage: Stage = {
  name: 'cookies',
  run: async (ctx) => cookieChecks(ctx.seenCookies, mainOrigin(ctx).startsWith('https:')),
};
