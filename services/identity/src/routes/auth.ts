import express, { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { envelope, HttpProblem, httpProblem, parseInput } from '@meridian/http-kit';
import {
  confirmEmail,
  findAccountByEmail,
  findAccountById,
  setPasswordHash,
} from '../db/repositories/accounts.js';
import { consumeEmailToken } from '../db/repositories/email-tokens.js';
import { deleteLinks } from '../db/repositories/oidc.js';
import { clearThrottle } from '../db/repositories/throttle.js';
import { emailSchema } from '../domain/account.js';
import { checkPassword, PASSWORD_MAX } from '../domain/password.js';
import { hashToken } from '../domain/secrets.js';
import type { IdentityDeps } from '../deps.js';
import { createAccount, disownUnproven, issueEmailToken } from '../flows/accounts.js';
import { hashPassword, passwordMatches } from '../flows/passwords.js';
import {
  CHALLENGE_COOKIE,
  clearChallengeCookie,
  clearSessionCookie,
  readCookie,
  endEverySession,
  endSession,
  sessionTokenOf,
  setSessionCookie,
  startSession,
} from '../flows/sessions.js';
import { findSessionByTokenHash } from '../db/repositories/sessions.js';
import {
  claimLoginAttempt,
  claimMinuteSlot,
  loginEmailScope,
  loginScopes,
  passwordAccepted,
} from '../flows/throttle.js';
import { startChallenge, completeChallenge } from '../flows/two-factor.js';
import { queueMail } from '../mail/mailer.js';
import { confirmationMail, existingAccountMail, resetMail } from '../mail/templates.js';
import {
  confirmEmailPage,
  emailConfirmedPage,
  invalidLinkPage,
  passwordResetPage,
  resetPasswordPage,
} from './pages.js';

/** Generous upper bound before the policy check, so a huge body never reaches zxcvbn or bcrypt. */
const passwordInput = z.string().max(PASSWORD_MAX * 4);
const credentials = z.object({ email: emailSchema, password: passwordInput });
const tokenInput = z.object({ token: z.string().min(20).max(128) });
/** The confirmation page's form post; only on that route, and small: it carries one token. */
const tokenForm = express.urlencoded({ extended: false, limit: '1kb', parameterLimit: 4 });
/** The reset page's form post: a token and a password of up to 256 characters, percent-encoded. */
const resetForm = express.urlencoded({ extended: false, limit: '8kb', parameterLimit: 4 });
const emailInput = z.object({ email: emailSchema });

const MAILED = {
  status: 'accepted',
  message: 'If this address can be used, a mail is on its way to it.',
};

export function authRoutes(deps: IdentityDeps): Router {
  const router = Router();
  router.post('/auth/signup', async (req, res) =>
    res.status(202).json(envelope(await signup(deps, req.body))),
  );
  router.post('/auth/verify-email', tokenForm, async (req, res) => {
    const { token } = parseInput(tokenInput, req.body);
    if (!req.is('application/x-www-form-urlencoded')) {
      res.json(envelope(await verifyEmail(deps, token)));
      return;
    }
    // The button of the page below: a browser gets a page back, not JSON.
    const confirmed = await confirmByToken(deps, token);
    res
      .status(confirmed ? 200 : 400)
      .type('html')
      .send(confirmed ? emailConfirmedPage() : invalidLinkPage('confirmation'));
  });
  // The mailed link itself. A GET changes nothing (mail scanners follow links): it answers a page
  // whose button posts the token.
  router.get('/auth/verify-email', (req, res) => {
    const { token } = parseInput(tokenInput, req.query, 'query');
    res.type('html').send(confirmEmailPage(token));
  });
  router.post('/auth/verify-email/resend', async (req, res) => {
    res.status(202).json(envelope(await resend(deps, parseInput(emailInput, req.body).email)));
  });
  router.post('/auth/login', async (req, res) => login(deps, req, res));
  router.post('/auth/2fa/verify', async (req, res) => {
    const fromCookie = readCookie(req.header('cookie'), CHALLENGE_COOKIE);
    const session = await completeChallenge(deps, req.body, fromCookie);
    if (fromCookie) clearChallengeCookie(res);
    setSessionCookie(res, session);
    res.json(envelope({ two_factor_required: false, ...session }));
  });
  router.post('/auth/logout', async (req, res) => logout(deps, req, res));
  router.post('/auth/password/forgot', async (req, res) => {
    res.status(202).json(envelope(await forgot(deps, parseInput(emailInput, req.body).email)));
  });
  router.post('/auth/password/reset', resetForm, async (req, res) => {
    if (!req.is('application/x-www-form-urlencoded')) {
      res.json(envelope(await reset(deps, req.body)));
      return;
    }
    const answer = await resetByForm(deps, req.body);
    res.status(answer.status).type('html').send(answer.html);
  });
  // The mailed link itself: like the confirmation link, a GET only answers the page whose form posts.
  router.get('/auth/password/reset', (req, res) => {
    const { token } = parseInput(tokenInput, req.query, 'query');
    res.type('html').send(resetPasswordPage(token));
  });
  return router;
}

function policyChecked(password: string, email: string): void {
  const verdict = checkPassword(password, [email, ...email.split(/[@.]/)]);
  if (!verdict.ok)
    throw httpProblem('validation_failed', verdict.detail, {
      errors: [{ path: 'body.password', message: verdict.detail }],
    });
}

/**
 * New and existing emails answer alike: the same 202 body, the same bcrypt work, the same slot
 * claim and transaction, and SMTP off the answer's path. A new account is mailed its confirmation;
 * the owner of an existing one a notice, at most once a minute, so repeated signups cannot flood
 * the owner's mailbox.
 */
async function signup(deps: IdentityDeps, body: unknown) {
  const { email, password } = parseInput(credentials, body);
  policyChecked(password, email);
  const hash = await hashPassword(password, deps.config.BCRYPT_COST);
  // The resend limit starts now for every address, so a resend's 429 tells nothing either.
  const slotTaken = (await claimMinuteSlot(deps, `resend:${email}`)) > 0;
  await deps.db.transaction().execute(async (trx) => {
    const id = await createAccount(trx, { email, password_hash: hash, email_confirmed_at: null });
    if (!id) {
      if (!slotTaken) await queueMail(trx, existingAccountMail(email, deps.config.PUBLIC_BASE_URL));
      return;
    }
    const token = await issueEmailToken(trx, id, 'confirm');
    await queueMail(trx, confirmationMail(email, deps.config.PUBLIC_BASE_URL, token));
  });
  deps.mail.kick();
  return MAILED;
}

/**
 * A provider identity linked before the address was proven may be anyone's, and would sign in to
 * the account from now on: it goes when the address is confirmed. None are made any more (links
 * only go to confirmed accounts, routes/oauth.ts); this drops links older than that rule.
 */
async function confirmByToken(deps: IdentityDeps, token: string): Promise<boolean> {
  const accountId = await deps.db.transaction().execute(async (trx) => {
    const id = await consumeEmailToken(trx, hashToken(token), 'confirm', new Date());
    if (id && (await confirmEmail(trx, id, new Date()))) await deleteLinks(trx, id);
    return id;
  });
  return accountId !== undefined;
}

async function verifyEmail(deps: IdentityDeps, token: string) {
  if (!(await confirmByToken(deps, token)))
    throw httpProblem('bad_request', 'The confirmation link is unknown, used or expired.', {
      category: 'invalid_token',
    });
  return { email_confirmed: true };
}

/** One confirmation mail per minute per address; the 429 comes for unknown addresses too. */
async function resend(deps: IdentityDeps, email: string) {
  const wait = await claimMinuteSlot(deps, `resend:${email}`);
  if (wait > 0)
    throw httpProblem('rate_limit', 'A confirmation mail was sent less than a minute ago.', {
      retryAfter: wait,
    });
  await deps.db.transaction().execute(async (trx) => {
    const account = await findAccountByEmail(trx, email);
    if (!account || account.email_confirmed_at) return;
    const token = await issueEmailToken(trx, account.id, 'confirm');
    await queueMail(trx, confirmationMail(email, deps.config.PUBLIC_BASE_URL, token));
  });
  deps.mail.kick();
  return MAILED;
}

async function login(deps: IdentityDeps, req: Request, res: Response): Promise<void> {
  const { email, password } = parseInput(credentials, req.body);
  const scopes = loginScopes(email, req);
  await claimLoginAttempt(deps, scopes);
  const account = await findAccountByEmail(deps.db, email);
  if (!(await passwordMatches(password, account?.password_hash, deps.config.BCRYPT_COST)) || !account) {
    // The failure was counted before the check.
    deps.logger.info({ account_id: account?.id ?? null }, 'sign-in refused: wrong credentials');
    throw httpProblem('unauthorized', 'The email or the password is wrong.', {
      category: 'invalid_credentials',
    });
  }
  // With TOTP on, the email's failure count stays until the second factor passes (completeChallenge).
  const complete = account.email_confirmed_at !== null && account.totp_state !== 'active';
  await passwordAccepted(deps, scopes, complete);
  if (!account.email_confirmed_at)
    throw httpProblem('forbidden', 'Confirm your email address before signing in.', {
      category: 'email_unconfirmed',
    });
  if (account.totp_state === 'active') {
    const challenge = await startChallenge(deps.db, account.id, 'password');
    res.json(envelope({ two_factor_required: true, ...challenge }));
    return;
  }
  const session = await deps.db
    .transaction()
    .execute((trx) => startSession(trx, deps, account.id, 'password'));
  setSessionCookie(res, session);
  deps.logger.info({ account_id: account.id, session_id: session.session_id }, 'signed in');
  res.json(envelope({ two_factor_required: false, account_id: account.id, ...session }));
}

/** Ends the session the gateway vouched for, or the one whose token the request carries. */
async function logout(deps: IdentityDeps, req: Request, res: Response): Promise<void> {
  let target =
    req.caller?.auth === 'session' && req.caller.account_id && req.caller.session_id
      ? { account_id: req.caller.account_id, id: req.caller.session_id }
      : undefined;
  const token = target ? undefined : sessionTokenOf(req);
  if (token) {
    const row = await findSessionByTokenHash(deps.db, hashToken(token));
    if (row) target = { account_id: row.account_id, id: row.id };
  }
  const ended =
    target && (await deps.db.transaction().execute((trx) => endSession(trx, target.account_id, target.id)));
  if (!ended) throw httpProblem('unauthorized', 'A valid session is required.');
  clearSessionCookie(res);
  res.json(envelope({ signed_out: true }));
}

async function forgot(deps: IdentityDeps, email: string) {
  // Silently one reset mail a minute per address, against mail bombing; the answer never changes.
  if ((await claimMinuteSlot(deps, `forgot:${email}`)) > 0) return MAILED;
  await deps.db.transaction().execute(async (trx) => {
    const account = await findAccountByEmail(trx, email);
    if (!account) return;
    const token = await issueEmailToken(trx, account.id, 'reset');
    await queueMail(trx, resetMail(email, deps.config.PUBLIC_BASE_URL, token));
  });
  deps.mail.kick();
  return MAILED;
}

const resetInput = z.object({ token: z.string().min(20).max(128), password: passwordInput });

/**
 * Sets the password, confirms the address (the mail was read), signs out every session; an
 * account never confirmed is disowned first (flows/accounts.ts). One transaction: a password the
 * policy refuses leaves the link usable.
 */
async function reset(deps: IdentityDeps, body: unknown) {
  const { token, password } = parseInput(resetInput, body);
  const hash = await hashPassword(password, deps.config.BCRYPT_COST);
  const done = await deps.db.transaction().execute(async (trx) => {
    const id = await consumeEmailToken(trx, hashToken(token), 'reset', new Date());
    const account = id ? await findAccountById(trx, id) : undefined;
    if (!account)
      throw httpProblem('bad_request', 'The reset link is unknown, used or expired.', {
        category: 'invalid_token',
      });
    policyChecked(password, account.email ?? '');
    const revoked = await endEverySession(trx, account.id);
    // The mail's reader is the address's proven owner; whoever made the account may not be.
    if (!account.email_confirmed_at) await disownUnproven(trx, account.id);
    await setPasswordHash(trx, account.id, hash);
    await confirmEmail(trx, account.id, new Date());
    return { email: account.email, revoked };
  });
  if (done.email) await clearThrottle(deps.db, loginEmailScope(done.email));
  return { password_reset: true, sessions_revoked: done.revoked };
}

/**
 * The reset page's form post, answered with a page: done, a dead link, or the form again with the
 * reason a password was refused (the link stays usable then).
 */
async function resetByForm(deps: IdentityDeps, body: unknown): Promise<{ status: number; html: string }> {
  const token = tokenInput.safeParse(body);
  if (!token.success) return { status: 400, html: invalidLinkPage('reset') };
  try {
    await reset(deps, body);
    return { status: 200, html: passwordResetPage() };
  } catch (err) {
    if (!(err instanceof HttpProblem) || err.body.status !== 400) throw err;
    if (err.body.error_category === 'invalid_token') return { status: 400, html: invalidLinkPage('reset') };
    return { status: 400, html: resetPasswordPage(token.data.token, err.body.detail) };
  }
}
