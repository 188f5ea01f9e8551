import type { Finding } from '@meridian/contracts';
import { guardedFetch, setCookies, type SeenResponse } from '../../adapters/scanner/http.js';
import { pageErrorChecks, redirectChecks } from '../../domain/checks/http.js';
import type { HttpObservation, Response } from '../../domain/observations.js';
import { describe, NothingReachable, type Stage } from './context.js';
import { logIn } from './login.js';

const asResponse = (r: SeenResponse): Response => ({ ...r });

/**
 * Signs in when the domain has credentials, then fetches http:// and https:// of the domain: the
 * schemes that answer are what every later stage tests. Neither answering fails the run.
 */
export const httpStage: Stage = {
  name: 'http',
  async run(ctx) {
    const { domain, options } = ctx;
    const out: Finding[] = [];
    if (ctx.input.credentials) {
      const login = await logIn(options, domain, ctx.input.credentials);
      out.push(login.finding);
      ctx.sessionCookie = login.cookie;
      ctx.seenCookies.push(...login.setCookies);
      await ctx.trace(
        'http',
        'info',
        login.finding.passed
          ? 'signed in for an authenticated audit'
          : 'could not sign in; auditing as a visitor',
      );
    }
    const headers: Record<string, string> = ctx.sessionCookie ? { cookie: ctx.sessionCookie } : {};
    const http: HttpObservation = { plain: null, plain_error: null, secure: null, secure_error: null };
    await Promise.all([
      guardedFetch(options, `http://${domain}/`, { headers }).then(
        (r) => void (http.plain = r.hops.map(asResponse)),
        (e) => void (http.plain_error = describe(e)),
      ),
      guardedFetch(options, `https://${domain}/`, { headers }).then(
        (r) => void (http.secure = r.hops.map(asResponse)),
        (e) => void (http.secure_error = describe(e)),
      ),
    ]);
    if (!http.plain && !http.secure)
      throw new NothingReachable(
        `${domain} answered neither HTTP (${http.plain_error}) nor HTTPS (${http.secure_error})`,
      );
    for (const r of [...(http.plain ?? []), ...(http.secure ?? [])])
      ctx.seenCookies.push(...setCookies(r.headers));
    ctx.http = http;
    ctx.origins = [
      ...(http.secure ? [`https://${domain}`] : []),
      ...(http.plain ? [`http://${domain}`] : []),
    ];
    ctx.page = (http.secure ?? http.plain)!.at(-1)!;
    return [...out, ...redirectChecks(http, domain), ...pageErrorChecks(ctx.page)];
  },
};
