import { call, data, get } from './api.js';
import { h, replace, type Page } from './dom.js';
import { form } from './forms.js';
import { session } from './session.js';

interface LoginAnswer {
  two_factor_required: boolean;
  challenge?: string;
}

const signedIn = () => {
  session.clear();
  location.hash = '#/domains';
};

const signup: Page = (main) => {
  const done = h('div', { role: 'status' });
  replace(
    main,
    h('h1', {}, 'Create an account'),
    form(
      [
        { name: 'email', label: 'Email', type: 'email', required: true, autocomplete: 'email' },
        {
          name: 'password',
          label: 'Password',
          type: 'password',
          required: true,
          autocomplete: 'new-password',
          hint: 'At least 12 characters.',
        },
      ],
      'Sign up',
      async (v) => {
        await data('POST', '/auth/signup', { email: v.email, password: v.password });
        replace(
          done,
          h('p', { class: 'ok' }, 'Check your mail: we sent a link to confirm your address. Then sign in.'),
        );
      },
    ),
    done,
    h('h2', {}, 'No mail?'),
    form(
      [{ name: 'email', label: 'Email', type: 'email', required: true, autocomplete: 'email' }],
      'Send the link again',
      async (v) => {
        await data('POST', '/auth/verify-email/resend', { email: v.email });
        replace(
          done,
          h('p', { class: 'ok' }, 'If the address is waiting for confirmation, a new link is on its way.'),
        );
      },
    ),
    h('p', {}, 'Have an account? ', h('a', { href: '#/signin' }, 'Sign in')),
  );
};

const confirm: Page = (main, params) => {
  const done = h('div', { role: 'status' });
  replace(
    main,
    h('h1', {}, 'Confirm your email'),
    form(
      [
        {
          name: 'token',
          label: 'Confirmation code from the mail',
          required: true,
          value: params.get('token') ?? '',
        },
      ],
      'Confirm',
      async (v) => {
        await data('POST', '/auth/verify-email', { token: v.token });
        replace(
          done,
          h('p', { class: 'ok' }, 'Your address is confirmed. ', h('a', { href: '#/signin' }, 'Sign in')),
        );
      },
    ),
    done,
  );
};

const signin: Page = async (main) => {
  const providers = await get<{ providers?: Array<{ id: string; name: string; authorize_url: string }> }>(
    '/auth/providers',
  ).catch(() => ({ providers: [] }));
  replace(
    main,
    h('h1', {}, 'Sign in'),
    form(
      [
        { name: 'email', label: 'Email', type: 'email', required: true, autocomplete: 'username' },
        {
          name: 'password',
          label: 'Password',
          type: 'password',
          required: true,
          autocomplete: 'current-password',
        },
      ],
      'Sign in',
      async (v) => {
        const answer = await data<LoginAnswer>('POST', '/auth/login', {
          email: v.email,
          password: v.password,
        });
        if (answer.two_factor_required) {
          session.challenge = answer.challenge;
          location.hash = '#/2fa';
        } else signedIn();
      },
    ),
    (providers.providers ?? []).length > 0
      ? h(
          'div',
          {},
          h('h2', {}, 'Or sign in with'),
          h(
            'ul',
            { class: 'plain' },
            ...(providers.providers ?? []).map((p) =>
              h('li', {}, h('a', { href: `/auth/oauth/${encodeURIComponent(p.id)}` }, p.name)),
            ),
          ),
        )
      : null,
    h(
      'p',
      {},
      h('a', { href: '#/forgot' }, 'Forgot your password?'),
      ' · ',
      h('a', { href: '#/signup' }, 'Create an account'),
    ),
  );
};

const twoFactor: Page = (main) => {
  const body = (v: Record<string, string>, field: 'code' | 'recovery_code') => ({
    // Without a challenge in memory (provider sign-in), identity reads its meridian_2fa cookie.
    ...(session.challenge ? { challenge: session.challenge } : {}),
    [field]: v[field],
  });
  replace(
    main,
    h('h1', {}, 'Two-factor check'),
    h('p', {}, 'Enter the 6-digit code from your authenticator app.'),
    form(
      [{ name: 'code', label: 'Code', required: true, autocomplete: 'one-time-code', inputmode: 'numeric' }],
      'Verify',
      async (v) => {
        await data('POST', '/auth/2fa/verify', body(v, 'code'));
        session.challenge = undefined;
        signedIn();
      },
    ),
    h('h2', {}, 'Lost your device?'),
    form(
      [{ name: 'recovery_code', label: 'Recovery code', required: true, autocomplete: 'off' }],
      'Use a recovery code',
      async (v) => {
        await data('POST', '/auth/2fa/verify', body(v, 'recovery_code'));
        session.challenge = undefined;
        signedIn();
      },
    ),
  );
};

const forgot: Page = (main) => {
  const done = h('div', { role: 'status' });
  replace(
    main,
    h('h1', {}, 'Forgot your password'),
    form(
      [{ name: 'email', label: 'Email', type: 'email', required: true, autocomplete: 'email' }],
      'Send a reset link',
      async (v) => {
        await data('POST', '/auth/password/forgot', { email: v.email });
        replace(
          done,
          h(
            'p',
            { class: 'ok' },
            'If the address has an account, a reset link is on its way (valid 30 minutes).',
          ),
        );
      },
    ),
    done,
  );
};

const reset: Page = (main, params) => {
  const done = h('div', { role: 'status' });
  replace(
    main,
    h('h1', {}, 'Choose a new password'),
    form(
      [
        {
          name: 'token',
          label: 'Reset code from the mail',
          required: true,
          value: params.get('token') ?? '',
        },
        {
          name: 'password',
          label: 'New password',
          type: 'password',
          required: true,
          autocomplete: 'new-password',
        },
      ],
      'Set password',
      async (v) => {
        await data('POST', '/auth/password/reset', { token: v.token, password: v.password });
        replace(
          done,
          h(
            'p',
            { class: 'ok' },
            'Password changed; every session was signed out. ',
            h('a', { href: '#/signin' }, 'Sign in'),
          ),
        );
      },
    ),
    done,
  );
};

const signout: Page = async (main) => {
  await call('POST', '/auth/logout', {}).catch(() => undefined);
  session.clear();
  session.account = null;
  replace(main, h('h1', {}, 'Signed out'), h('p', {}, h('a', { href: '#/signin' }, 'Sign in again')));
  document.getElementById('nav')?.querySelector('a[href="#/signout"]')?.remove();
};

export const authPages = {
  signup: { page: signup, title: 'Sign up', signedIn: false },
  confirm: { page: confirm, title: 'Confirm', signedIn: false },
  signin: { page: signin, title: 'Sign in', signedIn: false },
  '2fa': { page: twoFactor, title: 'Two-factor check', signedIn: false },
  forgot: { page: forgot, title: 'Forgot password', signedIn: false },
  reset: { page: reset, title: 'Reset password', signedIn: false },
  signout: { page: signout, title: 'Sign out', signedIn: false },
};
