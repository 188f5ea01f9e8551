import { cookieChecks } from '../../domain/checks/cookies.js';
import { hstsProtects } from '../../domain/checks/hsts.js';
import { isServerError, notGradedOnError } from '../../domain/checks/http.js';
import { mainOrigin, type Stage } from './context.js';

/**
 * Every Set-Cookie line seen: redirects, the page, the login. Whether the site answers https at
 * all decides what a Secure cookie means (a browser drops one set over http); the page's HSTS
 * softens a missing Secure flag.
 */
export const cookiesStage: Stage = {
  name: 'cookies',
  run: async (ctx) =>
    ctx.page && isServerError(ctx.page)
      ? [notGradedOnError('cookies', ctx.page)]
      : cookieChecks(
          ctx.seenCookies,
          mainOrigin(ctx).startsWith('https:'),
          ctx.page !== null && hstsProtects(ctx.page),
        ),
};
