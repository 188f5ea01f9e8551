import { createHash } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { escapeHtml } from '@meridian/contracts';
import { CONFIRM_PAGE } from '../domain/mail.js';
import type { ResetContext } from '../flows/reset-password.js';

/**
 * The look of the portal (portal/src/pages/style.css: its colours, type and controls), inlined
 * because the portal's stylesheet has a content-hashed name identity cannot know; the page policy
 * allows this one style block by its hash and nothing else.
 */
const PAGE_STYLE = [
  '*{box-sizing:border-box}',
  'body{margin:0;font:16px/1.5 system-ui,sans-serif;color:#1a1a1a;background:#fff}',
  'header{background:#f3f5f8;border-bottom:1px solid #ccc}',
  'header a{display:block;max-width:60rem;margin:0 auto;padding:.5rem 1rem;font-weight:700;color:#1a1a1a;text-decoration:none}',
  'main{max-width:60rem;margin:0 auto;padding:1rem}',
  'h1{font-size:1.6rem;margin:.5rem 0 1rem}',
  'a{color:#0b5394}',
  'form{display:grid;gap:.75rem;max-width:30rem;margin:.5rem 0 1rem}',
  'form p{margin:0}',
  'label{display:grid;gap:.2rem;font-weight:600}',
  'label:has(input[type=checkbox]){display:flex;gap:.5rem;align-items:flex-start;font-weight:400}',
  'input,button{font:inherit}',
  'input{padding:.45rem;border:1px solid #767676;border-radius:4px;width:100%}',
  'input[type=checkbox]{width:auto}',
  'button{justify-self:start;padding:.45rem .9rem;border:1px solid #0b5394;background:#0b5394;color:#fff;border-radius:4px;cursor:pointer}',
  ':focus-visible{outline:3px solid #ff9f1c;outline-offset:2px}',
  '[role=alert]{color:#a30000;font-weight:600}',
].join('');

/** The policy of these pages: no script at all, the one style block above, forms to this origin. */
export const PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(PAGE_STYLE).digest('base64')}'`,
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** The paths whose answers may be one of these pages: they carry the page policy. */
export const PAGE_PATHS = ['/auth/verify-email', '/auth/password/reset', '/auth/unlock', '/auth/oauth/link'];

export const pagePolicy = (_req: Request, res: Response, next: NextFunction): void => {
  res.set('Content-Security-Policy', PAGE_CSP);
  next();
};

/**
 * The few HTML pages identity answers to a browser following a mailed link (confirmation, reset). No script (the CSP
 * allows none): a plain form that POSTs back, so that only a person's click changes anything.
 */
function page(title: string, body: string): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)} · Meridian</title><style>${PAGE_STYLE}</style></head>`,
    '<body><header><a href="/#/welcome">Meridian</a></header>',
    `<main><h1>${escapeHtml(title)}</h1>${body}</main></body>`,
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

/**
 * The choices a reset offers the mailbox's owner: TOTP removed (when on: an authenticator lost with
 * the password would lock them out for good), and the API keys that stay live, named by prefix,
 * with the choice to revoke them all.
 */
function resetChoices(context: ResetContext | null): string {
  if (!context) return '';
  const totp = context.totp_active
    ? '<p><label><input type="checkbox" name="remove_totp"> Also turn off two-factor sign-in ' +
      '(for a lost authenticator; turn it on again from your account)</label></p>'
    : '';
  const keys = context.live_keys;
  if (keys.length === 0) return `${totp}<p>This account has no live API key.</p>`;
  const listed = keys
    .map(
      (k) =>
        `<li><code>${escapeHtml(k.prefix)}…</code> made ${escapeHtml(k.created_at.slice(0, 10))}` +
        `${k.last_used_at ? `, last used ${escapeHtml(k.last_used_at.slice(0, 10))}` : ', never used'}</li>`,
    )
    .join('');
  return (
    totp +
    `<p>These ${keys.length} API keys stay live after the reset unless you revoke them:</p><ul>${listed}</ul>` +
    '<p><label><input type="checkbox" name="revoke_keys"> Revoke all of them</label></p>'
  );
}

/** GET /auth/password/reset?token=: changes nothing; its form posts the token and the new password. */
export function resetPasswordPage(token: string, context: ResetContext | null, refusal?: string): string {
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
      resetChoices(context) +
      '<button type="submit">Set my new password</button></form>',
  );
}

export function passwordResetPage(done?: { totp_removed: boolean; keys_revoked: number }): string {
  const totp = done?.totp_removed ? ' Two-factor sign-in is off.' : '';
  const keys = done?.keys_revoked ? ` ${done.keys_revoked} API keys were revoked.` : '';
  return page(
    'Password changed',
    `<p>Your new password is set and every session was signed out.${totp}${keys} <a href="/#/signin">Sign in</a> with the new password.</p>`,
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
