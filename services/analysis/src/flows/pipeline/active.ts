import { setTimeout as sleep } from 'node:timers/promises';
import type { Finding } from '@meridian/contracts';
import { probeActive } from '../../adapters/scanner/active.js';
import { activeChecks } from '../../domain/checks/active.js';
import { notRun } from '../../domain/checks/finding.js';
import { inScope, inWindow } from '../../domain/scope.js';
import type { Stage, StageContext } from './context.js';

const AUTHORIZE =
  'Authorize active testing of the domain (POST /v1/audit/authorize) and run the audit again.';

/** Why the active tests cannot run at all, as a not-run finding; null when they can. */
function cannotRun(ctx: StageContext): Finding | null {
  const authorization = ctx.input.authorization ?? null;
  if (!authorization)
    return notRun(
      'active.not-authorized',
      'active',
      'Active tests were not run: no authorization',
      'no active-testing authorization for this domain',
      AUTHORIZE,
    );
  if (!inWindow(authorization, ctx.now()))
    return notRun(
      'active.outside-window',
      'active',
      'Active tests were not run: outside the authorized window',
      `authorized ${authorization.starts_at} to ${authorization.ends_at}`,
      AUTHORIZE,
    );
  if (!ctx.origins.some((origin) => inScope(`${origin}/`, ctx.domain, authorization)))
    return notRun(
      'active.out-of-scope',
      'active',
      'Active tests were not run: the site is outside the authorized scope',
      `the site answers at ${ctx.origins.join(' and ')}; scope: ${authorization.scope.join(', ')}`,
      'Authorize a scope that includes the site (or an empty scope: the whole domain).',
    );
  return null;
}

/**
 * The active tests (secure and review tiers), under an authorization whose window holds now,
 * against every scheme the site answers that the scope allows. Tests that got no answer at all
 * delivered nothing: a not-run finding says so, and the run is refunded what the stage cost.
 */
export const activeStage: Stage = {
  name: 'active',
  async run(ctx) {
    const refused = cannotRun(ctx);
    if (refused) return [refused];
    const authorization = ctx.input.authorization!;
    const origins = ctx.origins.filter((origin) => inScope(`${origin}/`, ctx.domain, authorization));
    const found = activeChecks(
      await probeActive(
        ctx.options,
        ctx.domain,
        origins,
        authorization,
        {
          delayMs: ctx.config.SCANNER_ACTIVE_DELAY_MS,
          maxRequests: ctx.config.SCANNER_ACTIVE_MAX_REQUESTS,
          now: ctx.now,
          sleep: (ms) => sleep(ms),
        },
        ctx.sessionCookie,
      ),
    );
    if (found.some((f) => f.outcome !== 'not_run')) return found;
    return [
      ...found,
      notRun(
        'active.no-answer',
        'active',
        'Active tests were not run: the site answered none of them',
        `no answer to any active test at ${origins.join(' and ')}`,
        'Make sure the site answers from the public internet, then run the audit again.',
      ),
    ];
  },
};
