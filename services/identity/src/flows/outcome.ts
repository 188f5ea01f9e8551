import { refuse, type Refusal } from '@meridian/contracts';

/** A refusal that says how long to wait; the route answers it as a 429 with retry_after. */
export type Wait = Refusal<'rate_limited'> & { retryAfter: number };

export const mustWait = (detail: string, retryAfter: number): Wait => ({
  ...refuse('rate_limited', detail),
  retryAfter,
});

/** A password the policy refuses; the route names the body's password field. */
export type WeakPassword = Refusal<'weak_password'>;
