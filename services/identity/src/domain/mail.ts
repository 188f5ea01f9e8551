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
      'attempt must now wait. If you cannot sign in because of it, this link lifts the wait:',
      '',
      link,
      '',
      'Open it and press the button; the link works once and expires in 24 hours. A program',
      'sends its token to POST /auth/unlock as {"token": "..."}. It changes nothing else: if',
      'someone else knows your password, reset it at',
      `${base(baseUrl)}/auth/password/forgot instead.`,
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
      `Your bookings are listed at ${base(baseUrl)}/v1/consulting/bookings.`,
    ].join('\n'),
  };
}
