import { pino, type Logger } from 'pino';
import { captureLine } from './capture.js';
import { redactFields, redactText, redactValue } from './redact.js';
import { currentTrace } from './trace.js';

export type { Logger } from 'pino';

export interface LoggerOptions {
  level?: string;
  /** Write to this stream instead of stdout (tests capture lines to prove nothing secret is logged). */
  destination?: NodeJS.WritableStream;
}

/**
 * A JSON logger whose lines carry no secret: fields are redacted by name at any depth and every
 * string (the message too) by the shape of a credential; see redact.ts.
 */
export function createLogger(service: string, options: LoggerOptions = {}): Logger {
  const opts: pino.LoggerOptions = {
    name: service,
    level: options.level ?? 'info',
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    // Errors are already plain, redacted objects when pino's serializers see them.
    serializers: { err: (err: unknown) => err },
    formatters: {
      log: (fields) => redactFields(fields),
      bindings: (bindings) => redactValue(bindings) as Record<string, unknown>,
    },
    hooks: {
      logMethod(args, method) {
        method.apply(this, redactedArgs(args) as Parameters<typeof method>);
      },
      streamWrite: captureLine,
    },
    // Each line carries the request id and trace id of the work it belongs to.
    mixin: () => {
      const trace = currentTrace();
      return trace ? { request_id: trace.requestId, trace_id: trace.traceId } : {};
    },
  };
  const logger = options.destination ? pino(opts, options.destination) : pino(opts);
  // pino applies formatters.bindings to the root only; children inherit this `child`, so theirs too.
  const child = logger.child;
  logger.child = function (this: unknown, ...args: Parameters<typeof child>) {
    return Reflect.apply(child, this, [redactValue(args[0]), args[1]]) as ReturnType<typeof child>;
  } as typeof child;
  return logger;
}

/**
 * The message and its format arguments, redacted. pino would otherwise take the message of a
 * logged error from `err.message` itself, unredacted, so that message is passed explicitly.
 */
function redactedArgs(args: unknown[]): unknown[] {
  const [first, ...rest] = args;
  const err = first instanceof Error ? first : (first as { err?: unknown } | undefined)?.err;
  const fields = first instanceof Error ? { err: first } : first;
  const message =
    typeof rest[0] !== 'string' && err instanceof Error && typeof first === 'object' ? [err.message] : [];
  return [fields, ...message, ...rest].map((arg) => (typeof arg === 'string' ? redactText(arg) : arg));
}
