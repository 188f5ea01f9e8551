/**
 * The API's codes in the words a person reads: plans, audit tiers, and the states of a booking, a
 * run and a domain. The API keeps its codes; no page shows one as the only label. A code not
 * listed here is shown with its underscores as spaces, never as a bare identifier.
 */
const spaced = (code: string) => code.replace(/_/g, ' ');

const PLANS: Record<string, string> = {
  free: 'Free',
  basic: 'Basic',
  pro: 'Pro',
  ultra: 'Ultra',
};

const TIERS: Record<string, string> = {
  audit_base: 'Base audit',
  audit_secure: 'Secure audit',
  audit_review: 'Audit with human review',
};

const BOOKING_STATES: Record<string, string> = {
  awaiting_payment: 'waiting for payment',
  confirmed: 'confirmed',
  expired: 'expired (not paid in time)',
  cancelled: 'cancelled',
};

const RUN_STATES: Record<string, string> = {
  awaiting_payment: 'waiting for payment',
  queued: 'queued',
  running: 'running',
  succeeded: 'finished',
  failed: 'failed',
  cancelled: 'cancelled',
  expired: 'expired (not paid in time)',
};

const DOMAIN_STATES: Record<string, string> = {
  pending: 'waiting for verification',
  verified: 'verified',
  failed: 'verification failed',
  lapsed: 'verification lapsed',
};

const wordsOf = (table: Record<string, string>) => (code: string) => table[code] ?? spaced(code);

export const planWords = wordsOf(PLANS);
export const tierWords = wordsOf(TIERS);
export const bookingStateWords = wordsOf(BOOKING_STATES);
export const runStateWords = wordsOf(RUN_STATES);
export const domainStateWords = wordsOf(DOMAIN_STATES);
