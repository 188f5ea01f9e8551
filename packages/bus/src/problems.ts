import { problem, type Problem } from '@meridian/contracts';

/** No server answered: the caller may retry in a second. */
export function serviceUnavailable(subject: string, reason: string): Problem {
  return problem('service_unavailable', `No answer on ${subject}: ${reason}`, { retryAfter: 1 });
}

/** The handler failed; its message stays in the server's log, never in the reply. */
export function internalError(): Problem {
  return problem('internal', 'The service could not handle the request');
}

export function badRequest(detail: string): Problem {
  return problem('validation_failed', detail);
}
