import type { RequestHeaders } from './request-headers.js';

/** The origins a cookie-authenticated change may come from, besides the gateway's own. */
export interface SiteOrigins {
  /** The origins of CORS_ORIGINS when it is a list (those may send cookies); none for '*'. */
  allowed: ReadonlySet<string>;
  /** The origin of PUBLIC_BASE_URL, when set. */
  own?: string;
}

export type CrossSiteRefusal = { kind: 'forbidden' | 'unsupported_media_type'; detail: string };

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const JSON_TYPE = /^application\/(?:json|[\w.+-]+\+json)\s*(?:;|$)/i;

function hostOf(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
}

/** Whether the browser says the request comes from a page of an origin we serve or allow. */
function fromOurSite(headers: RequestHeaders, origins: SiteOrigins): boolean {
  const origin = headers.origin;
  if (origin !== undefined) {
    if (origin === origins.own || origins.allowed.has(origin)) return true;
    return origin !== 'null' && headers.host !== undefined && hostOf(origin) === headers.host;
  }
  // Without Origin only Fetch Metadata can tell; a browser that sends neither is an old one or
  // not a browser, and the content-type rule below still stops a form or a text/plain post.
  const site = headers['sec-fetch-site'];
  return site === undefined || site === 'same-origin' || site === 'none';
}

function hasBody(headers: RequestHeaders): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Why a state change authenticated by the session cookie is refused, if it is: a page of another
 * site (Origin, else Sec-Fetch-Site `cross-site` or `same-site`, so a sibling subdomain too) gets
 * 403; a body, or a content type, other than JSON gets 415, since a cross-site form or a
 * no-cors fetch can send only form and text bodies without asking CORS first. Reads are
 * never refused.
 */
export function crossSiteRefusal(
  method: string,
  headers: RequestHeaders,
  origins: SiteOrigins,
): CrossSiteRefusal | undefined {
  if (SAFE_METHODS.has(method)) return undefined;
  if (!fromOurSite(headers, origins))
    return {
      kind: 'forbidden',
      detail: 'A change made with the session cookie must come from our own site.',
    };
  const type = headers['content-type'];
  if ((type !== undefined || hasBody(headers)) && !JSON_TYPE.test(type ?? ''))
    return {
      kind: 'unsupported_media_type',
      detail: 'A change made with the session cookie takes an application/json body.',
    };
  return undefined;
}
