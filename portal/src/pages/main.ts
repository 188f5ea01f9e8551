import { ApiError, get } from './api.js';
import { h, replace, type Page } from './dom.js';
import { problemBox } from './forms.js';
import { accountPage } from './account.js';
import { authPages } from './auth.js';
import { consultingPage } from './consulting.js';
import { creditPage } from './credit.js';
import { dataPage } from './data.js';
import { landingPage } from './landing.js';
import { domainPage, domainsPage } from './domains.js';
import { operatorPage, operatorReviewPage } from './operator.js';
import { reportPage, runPage } from './report.js';
import { session, type Account } from './session.js';

interface Route {
  page: Page;
  title: string;
  signedIn: boolean;
}

const routes: Record<string, Route> = {
  ...authPages,
  account: { page: accountPage, title: 'Account', signedIn: true },
  domains: { page: domainsPage, title: 'Domains', signedIn: true },
  domain: { page: domainPage, title: 'Domain', signedIn: true },
  run: { page: runPage, title: 'Run', signedIn: true },
  report: { page: reportPage, title: 'Report', signedIn: true },
  credit: { page: creditPage, title: 'Credit', signedIn: true },
  consulting: { page: consultingPage, title: 'Consulting', signedIn: true },
  data: { page: dataPage, title: 'Data', signedIn: false },
  operator: { page: operatorPage, title: 'Operator console', signedIn: true },
  'operator-review': { page: operatorReviewPage, title: 'Review', signedIn: true },
  welcome: { page: landingPage, title: 'Plans and prices', signedIn: false },
};

/** The page of an address the portal has no page for. */
const notFound: Route = {
  title: 'Page not found',
  signedIn: false,
  page: (main) =>
    replace(
      main,
      h('h1', {}, 'Page not found'),
      h(
        'p',
        { 'data-testid': 'not-found' },
        'There is no page at this address. It may have moved, or the link may be mistyped.',
      ),
      h('p', {}, h('a', { href: '#/' }, 'Go to the start page')),
    ),
};

function nav(account: Account | null): void {
  const link = (href: string, label: string) => h('a', { href }, label);
  replace(
    document.getElementById('nav')!,
    h('a', { href: '#/welcome', class: 'brand' }, 'Meridian'),
    account
      ? [
          link('#/domains', 'Domains'),
          link('#/credit', 'Credit'),
          link('#/consulting', 'Consulting'),
          link('#/data', 'Data'),
          link('#/account', 'Account'),
          account.operator ? link('#/operator', 'Operator') : null,
          link('#/signout', 'Sign out'),
        ]
      : [link('#/signin', 'Sign in'), link('#/signup', 'Sign up'), link('#/data', 'Data')],
  );
}

async function render(): Promise<void> {
  const main = document.getElementById('main')!;
  // Identity's provider sign-in comes back to `/?two_factor=required` when TOTP is on.
  if (new URLSearchParams(location.search).get('two_factor') === 'required') {
    history.replaceState(null, '', '/#/2fa');
  }
  const hash = location.hash.replace(/^#\/?/, '');
  const [path = '', query = ''] = hash.split('?');
  const [name = '', ...rest] = path.split('/');
  const account = await session.load();
  nav(account);
  // A visitor first learns what Meridian is; a signed-in person goes to their domains. An address
  // that names no page says so, rather than showing another page in its place.
  const home = account ? routes.domains! : routes.welcome!;
  const route = name === '' ? home : Object.hasOwn(routes, name) ? routes[name]! : notFound;
  if (route.signedIn && !account) {
    location.hash = '#/signin';
    return;
  }
  document.title = `${route.title} · Meridian`;
  replace(main, h('p', { role: 'status' }, 'Loading…'));
  try {
    await route.page(main, new URLSearchParams(query), decodeURIComponent(rest.join('/')));
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      session.clear();
      location.hash = '#/signin';
      return;
    }
    replace(main, h('h1', {}, route.title), problemBox(err));
  }
  main.focus();
}

window.addEventListener('hashchange', () => void render());
void get; // the API client is shared by every page
void render();
