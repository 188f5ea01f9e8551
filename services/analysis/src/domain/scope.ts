/** An active-testing authorization as the pipeline receives it. */
export interface Authorization {
  /**
   * What may be tested. Each entry is a host name (`example.com`, or `*.example.com` for its
   * subdomains), a URL prefix (`https://example.com/app/`) or a path prefix of the audited
   * domain (`/app/`). An empty scope means the audited domain, every path.
   */
  scope: string[];
  starts_at: string;
  ends_at: string;
}

export function inScope(
  target: string,
  domain: string,
  authorization: Pick<Authorization, 'scope'>,
): boolean {
  const url = new URL(target);
  const host = url.hostname.toLowerCase();
  if (authorization.scope.length === 0) return host === domain.toLowerCase();
  return authorization.scope.some((raw) => {
    const entry = raw.trim().toLowerCase();
    if (entry.startsWith('/')) return host === domain.toLowerCase() && url.pathname.startsWith(entry);
    if (/^https?:\/\//.test(entry)) return url.href.toLowerCase().startsWith(new URL(entry).href);
    if (entry.startsWith('*.')) return host.endsWith(entry.slice(1));
    return host === entry;
  });
}

/** The authorization is in force at `now` (its window is [starts_at, ends_at)). */
export const inWindow = (authorization: Authorization, now: Date): boolean =>
  now >= new Date(authorization.starts_at) && now < new Date(authorization.ends_at);
