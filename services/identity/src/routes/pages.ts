import { escapeHtml } from '@meridian/contracts';
import { CONFIRM_PAGE } from '../domain/mail.js';

/**
 * The few HTML pages identity answers to a browser following a mailed link (confirmation, reset). No script (the CSP
 * allows none): a plain form that POSTs back, so that only a person's click changes anything.
 */
function page(title: string, body: string): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title></head>`,
    `<body><main><h1>${escapeHtml(title)}</h1>${body}</main></body>`,
    '</html>',
  ].join('\n');
}

/**
 * GET /auth/verify-email?token=: changes nothing; its form posts the token with the password of
 * whoever reads the mail, which becomes the account's (the sign-up's may be someone else's).
 */
export function confirmEmailPage(token: string, refusal?: string): string {
  return page(
    'Confirm your email address',
    (refusal ? `<p role="alert">${escapeHtml(refusal)}</p>` : '') +
      '<form method="post" action="/auth/verify-email">' +
      `<input type="hidden" name="token" value="${escapeHtml(token)}">` +
      `<p>${escapeHtml(CONFIRM_PAGE.why)}</p>` +
      `<p><label>${escapeHtml(CONFIRM_PAGE.password)} ` +
      '<input type="password" name="password" autocomplete="new-password" minlength="12" maxlength="256" required>' +
      '</label></p>' +
      `<button type="submit">${escapeHtml(CONFIRM_PAGE.button)}</button></form>`,
  );
}

export function emailConfirmedPage(): string {
  return page(
    'Email address confirmed',
    '<p>Your email address is confirmed; you can <a href="/#/signin">sign in</a> now.</p>',
  );
}

/** GET /auth/password/reset?token=: changes nothing; its form posts the token and the new password. */
export function resetPasswordPage(token: string, refusal?: string): string {
  return page(
    'Choose a new password',
    (refusal ? `<p role="alert">${escapeHtml(refusal)}</p>` : '') +
      '<form method="post" action="/auth/password/reset">' +
      `<input type="hidden" name="token" value="${escapeHtml(token)}">` +
      '<p><label>New password (at least 12 characters) ' +
      '<input type="password" name="password" autocomplete="new-password" minlength="12" maxlength="256" required>' +
      '</label></p>' +
      '<p><label><input type="checkbox" name="keep_provider_links"> Keep the sign-in providers linked ' +
      'to my account (unchecked: they are unlinked)</label></p>' +
      '<button type="submit">Set my new password</button></form>',
  );
}

export function passwordResetPage(): string {
  return page(
    'Password changed',
    '<p>Your new password is set and every session was signed out; <a href="/#/signin">sign in</a> with the new password.</p>',
  );
}

/** GET /auth/unlock?token=: changes nothing; its button posts the token. */
export function unlockPage(token: string): string {
  return page(
    'Lift the sign-in wait',
    '<form method="post" action="/auth/unlock">' +
      `<input type="hidden" name="token" value="${escapeHtml(token)}">` +
      '<button type="submit">Let me sign in again</button></form>',
  );
}

export function signInUnlockedPage(): string {
  return page(
    'Sign-in unlocked',
    '<p>This browser can sign in with your password now; the wait still holds for others.</p>',
  );
}

/** GET /auth/oauth/link/confirm?token=: changes nothing; its button posts the token. */
export function confirmLinkPage(token: string): string {
  return page(
    'Link a sign-in provider',
    '<p>The provider named in the mail will be able to sign in to your account.</p>' +
      '<form method="post" action="/auth/oauth/link/confirm">' +
      `<input type="hidden" name="token" value="${escapeHtml(token)}">` +
      '<button type="submit">Link it to my account</button></form>',
  );
}

export function providerLinkedPage(): string {
  return page(
    'Provider linked',
    '<p>The provider can sign you in now. Your account page lists it, with a button to unlink it.</p>',
  );
}

const NEW_LINK = {
  confirmation: 'Ask for a new confirmation mail and use the latest link.',
  reset: 'Start a new password reset and use the latest link.',
  unlock: 'Start a password reset instead, which lifts the wait too.',
  link: 'Sign in through the provider again for a new mail.',
};

export function invalidLinkPage(link: keyof typeof NEW_LINK): string {
  return page(
    'This link does not work',
    `<p>The ${link} link is unknown, used or expired. ${NEW_LINK[link]}</p>`,
  );
}
