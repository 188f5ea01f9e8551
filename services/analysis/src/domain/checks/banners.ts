import type { Finding } from '@meridian/contracts';
import type { Response } from '../observations.js';
import { fail, pass, quote } from './finding.js';
import { headerOf, metaTags } from './page.js';

const hasVersion = (value: string) => /\d/.test(value);

interface Banner {
  id: string;
  what: string;
  /** The header (or meta tag) value when it gives something away, else null. */
  value: (page: Response) => string | null;
  remediation: string;
}

const header = (name: string, leaks: (value: string) => boolean) => (page: Response) => {
  const value = headerOf(page.headers, name).trim();
  return value && leaks(value) ? `${name}: ${value}` : null;
};

/** The version banners ZAP's baseline scan reports (its rules 10036, 10037 and 10061), and a generator tag. */
const BANNERS: Banner[] = [
  {
    id: 'headers.banner.server',
    what: 'The Server header names a version',
    value: header('Server', hasVersion),
    remediation:
      'Send the product name without its version, or no Server header (nginx `server_tokens off`, Apache `ServerTokens Prod`).',
  },
  {
    id: 'headers.banner.x-powered-by',
    what: 'X-Powered-By names the software behind the site',
    value: header('X-Powered-By', () => true),
    remediation: 'Remove X-Powered-By (PHP `expose_php = Off`, Express `app.disable("x-powered-by")`).',
  },
  {
    id: 'headers.banner.x-aspnet-version',
    what: 'X-AspNet-Version names the ASP.NET version',
    value: header('X-AspNet-Version', () => true),
    remediation: 'Set `<httpRuntime enableVersionHeader="false" />` in web.config.',
  },
  {
    id: 'headers.banner.x-aspnetmvc-version',
    what: 'X-AspNetMvc-Version names the ASP.NET MVC version',
    value: header('X-AspNetMvc-Version', () => true),
    remediation: 'Set `MvcHandler.DisableMvcResponseHeader = true` at application start.',
  },
  {
    id: 'headers.banner.generator',
    what: 'A generator meta tag names the software and its version',
    value: (page) => {
      const tag = metaTags(page.body).find(
        (m) => m.name === 'generator' && m.content && hasVersion(m.content),
      );
      return tag ? `<meta name="generator" content="${tag.content}">` : null;
    },
    remediation: 'Remove the generator meta tag (or its version) from the page template.',
  },
];

/**
 * Version banners: they tell an attacker which known flaws to try. Reported as low problems
 * worth no points, since the HTTP Observatory does not score them.
 */
export function bannerChecks(page: Response): Finding[] {
  const found = BANNERS.flatMap((b) => {
    const value = b.value(page);
    return value ? [fail(b.id, 'headers', b.what, 'low', quote(value), b.remediation)] : [];
  });
  return found.length
    ? found
    : [
        pass(
          'headers.banner.none',
          'headers',
          'No version banners',
          'Server, X-Powered-By, X-AspNet-Version, X-AspNetMvc-Version and the generator tag give no version',
        ),
      ];
}
