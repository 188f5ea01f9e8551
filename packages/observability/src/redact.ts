/**
 * What never reaches a log line: values under a secret-sounding field name, wherever they sit, and
 * strings that look like credentials wherever they appear (messages, URLs, error text).
 */

export const REDACTED = '[redacted]';

/** Field names (lower case, `-` read as `_`) whose values are secret or hold what a client sent. */
const SECRET_NAMES = new Set([
  'password',
  'new_password',
  'current_password',
  'old_password',
  'passphrase',
  'secret',
  'token',
  'key',
  'apikey',
  'authorization',
  'proxy_authorization',
  'cookie',
  'set_cookie',
  'totp',
  'code',
  'recovery_codes',
  'body',
  'raw_body',
  'payment_signature',
  'x_payment',
  'x_internal_assertion',
  'private_key',
  'seed',
  'mnemonic',
]);

/** `reset_token`, `client_secret`, `api_key`, `mail_body`, `totp_code`: the suffix names the kind. */
const SECRET_SUFFIX = /_(?:password|secret|token|key|body|code|cookie|assertion)$/;

/**
 * Error codes are diagnostics, not secrets: errno names (ECONNRESET), `ERR_*`-style codes and
 * SQLSTATEs (23505) stay readable under `code`; a TOTP, recovery or authorization code has none of
 * these shapes.
 */
const DIAGNOSTIC_CODE = /^(?:E[A-Z]{2,14}|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[0-9][0-9A-Z]{4})$/;

export function isSecretName(name: string): boolean {
  const normal = name.toLowerCase().replaceAll('-', '_');
  return SECRET_NAMES.has(normal) || SECRET_SUFFIX.test(normal);
}

function keepsValue(name: string, value: unknown): boolean {
  if (!isSecretName(name)) return true;
  const normal = name.toLowerCase();
  if (normal !== 'code' && !normal.endsWith('_code')) return false;
  return typeof value === 'number' || (typeof value === 'string' && DIAGNOSTIC_CODE.test(value));
}

/** Query parameters whose values are credentials, in any URL inside any string. */
const SECRET_QUERY =
  /([?&;](?:token|access_token|refresh_token|id_token|code|key|api_key|apikey|secret|client_secret|password|signature|sig|auth)=)[^&#\s"'<>]+/gi;
const BEARER = /\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{8,}/gi;
/** Our API keys (`mk_live_` + 50 base62, see contracts' api-key.ts) and test-mode look-alikes. */
const API_KEY = /\bmk_(?:live|test)_[0-9A-Za-z]{20,}/g;
const JWT = /\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g;
/** A long run of base64url: a token in a URL path, a cookie value, a pasted credential. */
const LONG_TOKEN = /[A-Za-z0-9_-]{32,}/g;
/** Hex (trace ids, uuids, hashes) and lower-case words are identifiers worth keeping. */
const IDENTIFIER = /^(?:[0-9a-fA-F-]+|[a-z_-]+)$/;

/** The string with every credential-shaped part replaced. */
export function redactText(text: string): string {
  return text
    .replace(API_KEY, REDACTED)
    .replace(JWT, REDACTED)
    .replace(BEARER, `$1 ${REDACTED}`)
    .replace(SECRET_QUERY, `$1${REDACTED}`)
    .replace(LONG_TOKEN, (run) => (IDENTIFIER.test(run) ? run : REDACTED));
}

const MAX_DEPTH = 8;

/**
 * A copy of `value` with secrets replaced. Errors become plain objects (type, message, stack and
 * their own fields such as `code`), redacted like any other object, so an error carrying a request
 * body (body-parser's do) logs no body.
 */
export function redactValue(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value === 'string') return redactText(value);
  if (typeof value !== 'object' || value === null) return value;
  if (value instanceof Date) return value;
  if (seen.has(value)) return '[circular]';
  if (depth >= MAX_DEPTH) return '[too deep]';
  if (Buffer.isBuffer(value)) return REDACTED;
  seen.add(value);
  let out: unknown;
  if (Array.isArray(value)) {
    out = value.map((item) => redactValue(item, depth + 1, seen));
  } else {
    const source = value instanceof Error ? errorFields(value) : (value as Record<string, unknown>);
    const fields: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(source))
      fields[name] = keepsValue(name, field) ? redactValue(field, depth + 1, seen) : REDACTED;
    out = fields;
  }
  // Only the path being walked counts as a cycle; an object met twice side by side is logged twice.
  seen.delete(value);
  return out;
}

function errorFields(err: Error): Record<string, unknown> {
  const fields: Record<string, unknown> = { type: err.constructor?.name ?? err.name, message: err.message };
  if (err.stack) fields.stack = err.stack;
  for (const [name, field] of Object.entries(err)) if (!(name in fields)) fields[name] = field;
  if (err.cause !== undefined) fields.cause = err.cause;
  return fields;
}

/** The fields of one log call, redacted. */
export function redactFields(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(fields))
    out[name] = keepsValue(name, field) ? redactValue(field) : REDACTED;
  return out;
}
