import express, { Router } from 'express';
import { z } from 'zod';
import { SESSIONS_EPOCH_HEADER } from '@meridian/contracts';
import { cookieValue, envelope, httpProblem, parseInput, parseQuery } from '@meridian/http-kit';
import { emailSchema } from '../domain/account.js';
import { PASSWORD_MAX } from '../domain/password.js';
import type { IdentityDeps } from '../deps.js';
import { answerChallenge } from '../flows/answer-challenge.js';
import { confirmEmailByToken } from '../flows/confirm-email.js';
import { logIn } from '../flows/log-in.js';
import { logOut } from '../flows/log-out.js';
import { requestReset } from '../flows/request-reset.js';
import { resendConfirmation } from '../flows/resend-confirmation.js';
import { resetContext, resetPassword, type ResetDone } from '../flows/reset-password.js';
import { signUp } from '../flows/sign-up.js';
import { unlockSignIn } from '../flows/unlock-sign-in.js';
import { clientAddress, valueOf } from './answer.js';
import { LINK_CONFIRM_PATH } from './oauth.js';
import {
  CHALLENGE_COOKIE,
  clearChallengeCookie,
  clearSessionCookie,
  sessionTokenOf,
  setDeviceCookie,
  setSessionCookie,
  signInPlaceOf,
} from './cookies.js';
import {
  confirmEmailPage,
  emailConfirmedPage,
  invalidLinkPage,
  passwordResetPage,
  resetPasswordPage,
  signInUnlockedPage,
  unlockPage,
} from './pages.js';

/** Generous upper bound before the policy check, so a huge body never reaches zxcvbn or bcrypt. */
const passwordInput = z.string().max(PASSWORD_MAX * 4);
const credentials = z.object({ email: emailSchema, password: passwordInput });
const tokenInput = z.object({ token: z.string().min(20).max(128) });
/** The confirmation: the token, and the password of whoever reads the mail (an empty field is none). */
const confirmInput = tokenInput.extend({
  password: passwordInput.optional().transform((p) => (p === '' ? undefined : p)),
});
/**
 * A reset removes the account's provider links unless the owner asks to keep them: `true` in JSON,
 * the checked box (`on`) of the reset page's form.
 */
/** A checkbox of the reset page (`on`) or a JSON boolean; absent is false. */
const checked = z
  .union([z.boolean(), z.literal('on')])
  .optional()
  .transform((value) => value === true || value === 'on');
const resetInput = z.object({
  token: z.string().min(20).max(128),
  password: passwordInput,
  keep_provider_links: checked,
  remove_totp: checked,
  revoke_keys: checked,
});
/** The confirmation page's form post; only on that route, and small: a token and a password. */
const tokenForm = express.urlencoded({ extended: false, limit: '8kb', parameterLimit: 4 });
/** The reset page's form post: a token and a password of up to 256 characters, percent-encoded. */
const resetForm = express.urlencoded({ extended: false, limit: '8kb', parameterLimit: 6 });
/** The routes whose pages post an HTML form; every other route reads JSON only (415 otherwise). */
export const FORM_PATHS: readonly string[] = [
  '/auth/verify-email',
  '/auth/password/reset',
  '/auth/unlock',
  LINK_CONFIRM_PATH,
];
const emailInput = z.object({ email: emailSchema });
/** A second factor: a current TOTP code, or one of the recovery codes. */
export const factorInput = z
  .object({
    code: z
      .string()
      .regex(/^\d{6}$/, 'six digits')
      .optional(),
    recovery_code: z.string().min(8).max(64).optional(),
  })
  .refine((f) => f.code !== undefined || f.recovery_code !== undefined, {
    message: 'code or recovery_code is required',
    path: ['code'],
  });
const challengeInput = z.object({ challenge: z.string().min(20).max(128).optional() }).and(factorInput);

/** The one answer of signup, resend and forgot, whatever the address. */
const MAILED = {
  status: 'accepted',
  message: 'If this address can be used, a mail is on its way to it.',
};

/**
 * Tells the gateway carrying the answer that every session of the account ended (it removes the
 * field), so no replica vouches for one of them once the client has the answer.
 */
function sessionsEnded(res: express.Response, done: ResetDone): express.Response {
  return res.set(SESSIONS_EPOCH_HEADER, `${done.account_id} ${done.sessions_epoch}`);
}

export function authRoutes(deps: IdentityDeps): Router {
  const router = Router();
  signUpRoutes(router, deps);
  signInRoutes(router, deps);
  recoveryRoutes(router, deps);
  return router;
}

/** Signing up and confirming the email address (by API or by the mailed link's page). */
function signUpRoutes(router: Router, deps: IdentityDeps): void {
  router.post('/auth/signup', async (req, res) => {
    const input = parseInput(credentials, req.body);
    valueOf(await signUp(deps, { ...input, clientAddress: clientAddress(req) }));
    res.status(202).json(envelope(MAILED));
  });
  router.post('/auth/verify-email', tokenForm, async (req, res) => {
    const input = parseInput(confirmInput, req.body);
    const confirmed = await confirmEmailByToken(deps, input);
    if (!req.is('application/x-www-form-urlencoded')) {
      res.json(envelope(valueOf(confirmed)));
      return;
    }
    // The form of the page below: a browser gets a page back, not JSON.
    if (confirmed.ok) res.type('html').send(emailConfirmedPage());
    else if (confirmed.code === 'invalid_token')
      res.status(400).type('html').send(invalidLinkPage('confirmation'));
    else res.status(400).type('html').send(confirmEmailPage(input.token, confirmed.detail));
  });
  // The mailed link itself. A GET changes nothing (mail scanners follow links): it answers a page
  // whose button posts the token.
  router.get('/auth/verify-email', (req, res) => {
    const { token } = parseQuery(tokenInput, req.query);
    res.type('html').send(confirmEmailPage(token));
  });
  router.post('/auth/verify-email/resend', async (req, res) => {
    valueOf(await resendConfirmation(deps, parseInput(emailInput, req.body).email));
    res.status(202).json(envelope(MAILED));
  });
}

/** Signing in (with a second factor when the account has one) and out. */
function signInRoutes(router: Router, deps: IdentityDeps): void {
  router.post('/auth/login', async (req, res) => {
    const input = parseInput(credentials, req.body);
    const outcome = valueOf(await logIn(deps, { ...input, place: signInPlaceOf(req) }));
    if (outcome.two_factor_required) {
      res.json(envelope({ two_factor_required: true, ...outcome.challenge }));
      return;
    }
    setSessionCookie(res, outcome.session);
    setDeviceCookie(res, outcome.device);
    res.json(envelope({ two_factor_required: false, account_id: outcome.account_id, ...outcome.session }));
  });
  router.post('/auth/2fa/verify', async (req, res) => {
    const fromCookie = cookieValue(req.header('cookie'), CHALLENGE_COOKIE);
    const { challenge, ...factor } = parseInput(challengeInput, req.body);
    const token = challenge ?? fromCookie;
    if (!token)
      throw httpProblem('validation_failed', 'challenge is required (or the challenge cookie).', {
        errors: [{ path: 'body.challenge', message: 'Required' }],
      });
    const { session, device } = valueOf(await answerChallenge(deps, token, factor, signInPlaceOf(req)));
    if (fromCookie) clearChallengeCookie(res);
    setSessionCookie(res, session);
    setDeviceCookie(res, device);
    res.json(envelope({ two_factor_required: false, ...session }));
  });
  router.post('/auth/logout', async (req, res) => {
    const caller = req.caller;
    const vouched =
      caller?.auth === 'session' && caller.account_id && caller.session_id
        ? { account_id: caller.account_id, id: caller.session_id }
        : undefined;
    valueOf(await logOut(deps, { vouched, token: vouched ? undefined : sessionTokenOf(req) }));
    clearSessionCookie(res);
    res.json(envelope({ signed_out: true }));
  });
}

/** A forgotten password and a locked sign-in: the mailed links, their pages and their posts. */
function recoveryRoutes(router: Router, deps: IdentityDeps): void {
  router.post('/auth/password/forgot', async (req, res) => {
    valueOf(await requestReset(deps, parseInput(emailInput, req.body).email));
    res.status(202).json(envelope(MAILED));
  });
  router.post('/auth/password/reset', resetForm, async (req, res) => {
    if (!req.is('application/x-www-form-urlencoded')) {
      const done = valueOf(await resetPassword(deps, parseInput(resetInput, req.body)));
      sessionsEnded(res, done);
      const { sessions_revoked, totp_removed, keys_revoked } = done;
      res.json(envelope({ password_reset: true, sessions_revoked, totp_removed, keys_revoked }));
      return;
    }
    // The reset page's form post, answered with a page: done, a dead link, or the form again
    // with the reason a password was refused (the link stays usable then).
    const input = resetInput.safeParse(req.body);
    if (!tokenInput.safeParse(req.body).success) {
      res.status(400).type('html').send(invalidLinkPage('reset'));
      return;
    }
    const done = input.success
      ? await resetPassword(deps, input.data)
      : ({ ok: false, code: 'weak_password', detail: input.error.issues[0]?.message ?? 'password' } as const);
    if (done.ok) sessionsEnded(res, done.value).type('html').send(passwordResetPage(done.value));
    else if (done.code === 'invalid_token') res.status(400).type('html').send(invalidLinkPage('reset'));
    else
      res
        .status(400)
        .type('html')
        .send(
          resetPasswordPage(
            String(req.body.token),
            await resetContext(deps, String(req.body.token)),
            done.detail,
          ),
        );
  });
  router.post('/auth/unlock', tokenForm, async (req, res) => {
    const { token } = parseInput(tokenInput, req.body);
    const unlocked = await unlockSignIn(deps, token, signInPlaceOf(req));
    if (unlocked.ok) setDeviceCookie(res, unlocked.value.device);
    if (!req.is('application/x-www-form-urlencoded')) {
      res.json(envelope({ unlocked: valueOf(unlocked).unlocked }));
      return;
    }
    res
      .status(unlocked.ok ? 200 : 400)
      .type('html')
      .send(unlocked.ok ? signInUnlockedPage() : invalidLinkPage('unlock'));
  });
  router.get('/auth/unlock', (req, res) => {
    const { token } = parseQuery(tokenInput, req.query);
    res.type('html').send(unlockPage(token));
  });
  // The mailed link itself: like the confirmation link, a GET only answers the page whose form posts.
  router.get('/auth/password/reset', async (req, res) => {
    const { token } = parseQuery(tokenInput, req.query);
    res.type('html').send(resetPasswordPage(token, await resetContext(deps, token)));
  });
}
