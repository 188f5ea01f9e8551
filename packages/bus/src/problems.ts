import type { Problem } from '@meridian/contracts';

const ERRORS = 'https://meridian.example/errors';

/** No server answered: the caller may retry later. */
export function serviceUnavailable(subject: string, reason: string): Problem {
  return {
    type: `${ERRORS}/service_unavailable`,
    title: 'Service unavailable',
    status: 503,
    detail: `No answer on ${subject}: ${reason}`,
    error_category: 'service_unavailable',
    retryable: true,
  };
}

/** The handler failed; its message stays in the server's log, never in the reply. */
export function internalError(): Problem {
  return {
    type: `${ERRORS}/internal`,
    title: 'Internal error',
    status: 500,
    detail: 'The service could not handle the request',
    error_category: 'internal',
    retryable: false,
  };
}

export function badRequest(detail: string): Problem {
  return {
    type: `${ERRORS}/validation`,
    title: 'Bad request',
    status: 400,
    detail,
    error_category: 'validation',
    retryable: false,
  };
}
