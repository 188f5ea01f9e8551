/** A mail as identity writes it; the relay sends it later. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
}

const base = (url: string) => url.replace(/\/+$/, '');

/**
 * What the confirmation page asks, named once so that the mail describes the page it links to:
 * the password makes whoever reads the mail the owner of the account (see the README's
 * pre-hijacking rules), so the page asks for it and the mail says so.
 */
export const CONFIRM_PAGE = {
  password: 'Your password (the one you signed up with, or a new one; at least 12 characters)',
  why: 'Typing your password here makes it the account’s: whoever reads this mail owns the account.',
  button: 'Confirm my email address',
} as const;

export function confirmationMail(to: string, baseUrl: string, token: string): Mail {
  const link = `${base(baseUrl)}/auth/verify-email?token=${token}`;
  return {
    to,
    subject: 'Confirm your Meridian account',
    text: [
      'Confirm your email address to finish creating your Meridian account:',
      '',
      link,
      '',
      `The page asks for "${CONFIRM_PAGE.password}"`,
      `and has a button "${CONFIRM_PAGE.button}".`,
      CONFIRM_PAGE.why,
      'The link works once and expires in 24 hours. A program sends its token to',
      'POST /auth/verify-email as {"token": "...", "password": "..."}. If you did not sign up,',
      'ignore this mail.',
    ].join('\n'),
  };
}

export function existingAccountMail(to: string, baseUrl: string): Mail {
  return {
    to,
    subject: 'Someone tried to sign up with your email',
    text: [
      'Somebody (perhaps you) tried to create a Meridian account with this address, which',
      'already has one. No new account was created.',
      '',
      `If you forgot your password, start a reset at ${base(baseUrl)}/auth/password/forgot.`,
    ].join('\n'),
  };
}

export function resetMail(to: string, baseUrl: string, token: string): Mail {
  const link = `${base(baseUrl)}/auth/password/reset?token=${token}`;
  return {
    to,
    subject: 'Reset your Meridian password',
    text: [
      'To choose a new password, use this link:',
      '',
      link,
      '',
      'Open it and type your new password; the link works once and expires in 30 minutes.',
      'A program sends its token with the new password to POST /auth/password/reset as',
      '{"token": "...", "password": "..."}. Every session is signed out. If you did not ask',
      'for this, ignore this mail.',
    ].join('\n'),
  };
}

export function unlockMail(to: string, baseUrl: string, token: string): Mail {
  const link = `${base(baseUrl)}/auth/unlock?token=${token}`;
  return {
    to,
    subject: 'Sign-ins to your Meridian account are slowed down',
    text: [
      'Many sign-ins with a wrong password were tried on your Meridian account, so each new',
      'attempt must now wait. Browsers you signed in with before are not held back. If you cannot',
      'sign in because of it, open this link in the browser you sign in with:',
      '',
      link,
      '',
      'Press the button there; that browser can then sign in while the wait holds for others. The',
      'link works once and expires in 24 hours. A program sends its token to POST /auth/unlock as',
      '{"token": "..."} and keeps the cookie it gets. It changes nothing else: if',
      'someone else knows your password, reset it at',
      `${base(baseUrl)}/auth/password/forgot instead.`,
    ].join('\n'),
  };
}

/** Every new provider link is told to the account's owner, who can undo it. */
export function providerLinkedMail(to: string, baseUrl: string, provider: string): Mail {
  return {
    to,
    subject: `${provider} can now sign in to your Meridian account`,
    text: [
      `A sign-in through ${provider} was linked to your Meridian account; it can sign you in from`,
      'now on. If that was not you, unlink it on your account page',
      `(${base(baseUrl)}/#/account, or DELETE /v1/account/links/{id}) and reset your password at`,
      `${base(baseUrl)}/auth/password/forgot; a reset removes every link unless you keep them.`,
    ].join('\n'),
  };
}

/** Someone signed in through a provider that vouches for this address: only its owner may link it. */
export function linkConfirmationMail(to: string, baseUrl: string, provider: string, token: string): Mail {
  const link = `${base(baseUrl)}/auth/oauth/link/confirm?token=${token}`;
  return {
    to,
    subject: `Link ${provider} to your Meridian account?`,
    text: [
      `Someone signed in through ${provider} with this email address, which already has a Meridian`,
      `account. To let ${provider} sign you in to it, use this link:`,
      '',
      link,
      '',
      'Open it and press the button; the link works once and expires in 30 minutes. A program',
      'sends its token to POST /auth/oauth/link/confirm as {"token": "..."}. If it was not you,',
      'ignore this mail: nothing is linked without it.',
    ].join('\n'),
  };
}

/** A consulting booking paid and confirmed (the requests service announces it). Times in UTC. */
export function bookingConfirmedMail(
  to: string,
  baseUrl: string,
  booking: { booking_id: string; starts_at: string; ends_at: string; topic: string | null },
): Mail {
  const when = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
  return {
    to,
    subject: `Your consulting session on ${when(booking.starts_at)} is booked`,
    text: [
      'Your consulting session is booked and paid:',
      '',
      `  From:    ${when(booking.starts_at)}`,
      `  Until:   ${when(booking.ends_at)}`,
      ...(booking.topic ? [`  Topic:   ${booking.topic}`] : []),
      `  Booking: ${booking.booking_id}`,
      '',
      `Your bookings are listed at ${base(baseUrl)}/#/consulting.`,
    ].join('\n'),
  };
}

/** An operator recorded the human review of the account's audit (analysis announces it). */
export function reviewRecordedMail(
  to: string,
  baseUrl: string,
  review: { run_id: string; domain: string; author: string },
): Mail {
  return {
    to,
    subject: `The human review of your audit of ${review.domain} is ready`,
    text: [
      `${review.author} reviewed the audit of ${review.domain} (run ${review.run_id}).`,
      '',
      `Read the review in the report: ${base(baseUrl)}/v1/analysis/report/${encodeURIComponent(review.run_id)}`,
    ].join('\n'),
  };
}
