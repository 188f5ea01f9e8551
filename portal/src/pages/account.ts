import { data, get, post } from './api.js';
import { copyButton, h, local, replace, type Page } from './dom.js';
import { action, form, problemBox, type Field } from './forms.js';
import { planSection } from './plan.js';
import { session, type Account } from './session.js';

interface TwoFactor {
  state: 'off' | 'pending' | 'active';
  recovery_codes_left?: number;
}

function codesBox(codes: string[]): HTMLElement {
  return h(
    'div',
    { class: 'card', role: 'status' },
    h('h3', {}, 'Your recovery codes'),
    h('p', {}, 'Shown once. Keep them somewhere safe: each signs you in once without your device.'),
    h('pre', { 'data-testid': 'recovery-codes' }, codes.join('\n')),
    copyButton(() => codes.join('\n'), 'Copy the codes'),
  );
}

/** A field for one code of the authenticator app. */
const codeField = (label: string): Field => ({
  name: 'code',
  label,
  required: true,
  autocomplete: 'one-time-code',
  inputmode: 'numeric',
});

async function twoFactorSection(box: HTMLElement): Promise<void> {
  const status = await get<TwoFactor>('/v1/account/2fa');
  const out = h('div');
  const refresh = () => twoFactorSection(box);
  if (status.state === 'active') {
    replace(
      box,
      h('h2', {}, 'Two-factor sign-in'),
      h(
        'p',
        { 'data-testid': 'totp-state' },
        `On. Recovery codes left: ${status.recovery_codes_left ?? '—'}.`,
      ),
      form([codeField('Code to turn it off')], 'Turn off two-factor', async (v) => {
        await post('/v1/account/2fa/disable', { code: v.code });
        await refresh();
      }),
      form([codeField('Code to get new recovery codes')], 'New recovery codes', async (v) => {
        const answer = await post<{ recovery_codes: string[] }>('/v1/account/2fa/recovery-codes', {
          code: v.code,
        });
        replace(out, codesBox(answer.recovery_codes));
      }),
      out,
    );
    return;
  }
  replace(
    box,
    h('h2', {}, 'Two-factor sign-in'),
    h('p', { 'data-testid': 'totp-state' }, 'Off.'),
    // Identity asks for the password first, so a borrowed session cannot lock the owner out.
    form(
      [
        {
          name: 'password',
          label: 'Password to confirm it is you',
          type: 'password',
          autocomplete: 'current-password',
          hint: 'Signed in only through a provider? Leave it empty and sign in again first.',
        },
      ],
      'Set up an authenticator app',
      async (v) => {
        const enrol = await post<{ secret: string; otpauth_uri: string; qr_data_url: string }>(
          '/v1/account/2fa/enrol',
          v.password ? { password: v.password } : {},
        );
        replace(
          out,
          h('p', {}, 'Scan this code with your authenticator app, or type the key.'),
          h('img', { class: 'qr', src: enrol.qr_data_url, alt: 'QR code of your authenticator key' }),
          h('p', {}, 'Key: ', h('code', { 'data-testid': 'totp-secret' }, enrol.secret)),
          form([codeField('First code from the app')], 'Turn on two-factor', async (w) => {
            const answer = await post<{ recovery_codes: string[] }>('/v1/account/2fa/activate', {
              code: w.code,
            });
            await twoFactorSection(box);
            box.append(codesBox(answer.recovery_codes));
          }),
        );
      },
    ),
    out,
  );
}

function keysSection(account: Account, box: HTMLElement): void {
  const created = h('div', { 'aria-live': 'polite' });
  const live = account.keys.filter((k) => !k.revoked_at);
  replace(
    box,
    h('h2', {}, 'API keys'),
    form([], 'Create a key', async () => {
      const key = await data<{ id: string; key: string; prefix: string }>('POST', '/v1/keys', {});
      session.clear();
      keysSection((await session.load())!, box);
      box.append(
        h(
          'div',
          { class: 'card', role: 'status' },
          h('p', {}, h('strong', {}, 'Your new key, shown once: '), 'copy it now, it is not stored here.'),
          h('p', {}, h('code', { class: 'secret', 'data-testid': 'new-key' }, key.key)),
          copyButton(() => key.key, 'Copy key'),
        ),
      );
    }),
    created,
    live.length === 0
      ? h('p', { class: 'muted' }, 'No live key.')
      : h(
          'table',
          {},
          h('caption', { class: 'muted' }, 'Live keys'),
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              h('th', {}, 'Prefix'),
              h('th', {}, 'Created'),
              h('th', {}, 'Last used'),
              h('th', {}, ''),
            ),
          ),
          h(
            'tbody',
            {},
            ...live.map((k) =>
              h(
                'tr',
                {},
                h('td', {}, h('code', {}, k.prefix)),
                h('td', {}, local(k.created_at)),
                h('td', {}, local(k.last_used_at)),
                h(
                  'td',
                  {},
                  action(`Revoke ${k.prefix}`, async () => {
                    await post(`/v1/keys/${encodeURIComponent(k.id)}/revoke`);
                    session.clear();
                    keysSection((await session.load())!, box);
                  }),
                ),
              ),
            ),
          ),
        ),
  );
}

/** The provider identities that can sign in to the account, each with its unlink button. */
async function providersSection(account: Account, box: HTMLElement): Promise<void> {
  const { providers } = await get<{ providers: Array<{ id: string; name: string; authorize_url: string }> }>(
    '/auth/providers',
  );
  replace(
    box,
    h('h2', {}, 'Sign-in providers'),
    account.provider_links.length === 0
      ? h('p', { class: 'muted', 'data-testid': 'provider-links' }, 'No provider linked.')
      : h(
          'ul',
          { 'data-testid': 'provider-links' },
          ...account.provider_links.map((link) =>
            h(
              'li',
              {},
              `${link.name ?? link.issuer}, linked ${local(link.linked_at)} `,
              action(`Unlink ${link.name ?? link.issuer}`, async () => {
                await data('DELETE', `/v1/account/links/${encodeURIComponent(link.id)}`);
                session.clear();
                await providersSection((await session.load())!, box);
              }),
            ),
          ),
        ),
    ...providers.map((p) => h('p', {}, h('a', { href: p.authorize_url }, `Link ${p.name} to this account`))),
  );
}

export const accountPage: Page = async (main) => {
  session.clear();
  const account = (await session.load())!;
  const twoFactor = h('section', { 'aria-label': 'Two-factor sign-in' });
  const keys = h('section', { 'aria-label': 'API keys' });
  const plan = h('section', { 'aria-label': 'Data plan' });
  const providers = h('section', { 'aria-label': 'Sign-in providers' });
  replace(
    main,
    h('h1', {}, 'Account'),
    h('p', {}, `Signed in as ${account.email}.`),
    h('h2', {}, 'Nickname'),
    form(
      [{ name: 'nickname', label: 'Public nickname', value: account.nickname ?? '' }],
      'Save nickname',
      async (v) => {
        await data('PUT', '/v1/account/nickname', { nickname: v.nickname });
      },
    ),
    twoFactor,
    providers,
    keys,
    plan,
    h('h2', {}, 'Sessions'),
    h(
      'p',
      { class: 'muted' },
      'The API lists no sessions; signing out ends this one, and a password reset ends them all.',
    ),
  );
  keysSection(account, keys);
  await Promise.all([
    twoFactorSection(twoFactor).catch((e: unknown) => twoFactor.append(problemBox(e))),
    planSection(plan, account.plan).catch((e: unknown) => plan.append(problemBox(e))),
    providersSection(account, providers).catch((e: unknown) => providers.append(problemBox(e))),
  ]);
};
