import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';

const HELMET_OPTIONS = {
  contentSecurityPolicy: { directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
};

/**
 * helmet's answer headers, worked out once. Every answer gets the same set, so running helmet's
 * dozen middlewares per request buys nothing; the headers stay helmet's own choice.
 */
export const SECURITY_HEADERS: ReadonlyMap<string, string | number | readonly string[]> = (() => {
  const headers = new Map<string, string | number | readonly string[]>();
  const recorder = {
    setHeader: (name: string, value: string | number | readonly string[]) =>
      headers.set(name.toLowerCase(), value),
    removeHeader: (name: string) => headers.delete(name.toLowerCase()),
    getHeader: (name: string) => headers.get(name.toLowerCase()),
  } as unknown as ServerResponse;
  helmet(HELMET_OPTIONS)({ headers: {} } as IncomingMessage, recorder, () => {});
  return headers;
})();

export function setSecurityHeaders(res: ServerResponse): void {
  res.setHeaders(SECURITY_HEADERS as Map<string, string | number | readonly string[]>);
}
