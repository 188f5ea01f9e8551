import { ok, refuse, type Result } from '@meridian/contracts';

export interface RequestAsked {
  kind: 'pentest' | 'pentest_discussion' | 'consultancy';
  domain?: string | undefined;
  detail?: string | undefined;
}

/**
 * What one request is about. A pentest or its discussion concerns a domain, so it names one; a
 * consultancy names none (portal 2.4: "omitted or empty for consultancy"). Hostnames compare in
 * lower case, so "Example.com" and "example.com" are one request.
 */
export function requestKey(
  asked: RequestAsked,
): Result<{ kind: string; domain: string; detail: string | null }> {
  const domain = (asked.domain ?? '').toLowerCase();
  if (asked.kind === 'consultancy' && domain !== '')
    return refuse(
      'validation_failed',
      'domain: a consultancy request names no domain; leave it out or empty',
    );
  if (asked.kind !== 'consultancy' && domain === '')
    return refuse('validation_failed', `domain: a ${asked.kind} request names the domain it concerns`);
  const detail = asked.detail?.trim();
  return ok({ kind: asked.kind, domain, detail: detail ? detail : null });
}
