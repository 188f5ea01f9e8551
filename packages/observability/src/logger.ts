import { pino, type Logger } from 'pino';
import { currentTrace } from './trace.js';

export type { Logger } from 'pino';

/** Paths whose values never reach a log line: secrets, passwords, keys, TOTP secrets, share tokens. */
export const REDACTED_PATHS = [
  'password',
  'new_password',
  'secret',
  'token',
  'key',
  'api_key',
  'code',
  'recovery_code',
  '*.password',
  '*.secret',
  '*.token',
  '*.key',
  '*.api_key',
  '*.code',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["payment-signature"]',
  'req.headers["x-payment"]',
  'req.headers["x-internal-assertion"]',
  'res.headers["set-cookie"]',
];

export interface LoggerOptions {
  level?: string;
  /** Write to this stream instead of stdout (tests capture lines to prove nothing secret is logged). */
  destination?: NodeJS.WritableStream;
}

export function createLogger(service: string, options: LoggerOptions = {}): Logger {
  const opts = {
    name: service,
    level: options.level ?? 'info',
    base: { service },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    // Each line carries the request id and trace id of the work it belongs to.
    mixin: () => {
      const trace = currentTrace();
      return trace ? { request_id: trace.requestId, trace_id: trace.traceId } : {};
    },
  };
  return options.destination ? pino(opts, options.destination) : pino(opts);
}
