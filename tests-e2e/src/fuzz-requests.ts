import fc from 'fast-check';

/** One operation of `/openapi.json` (or a page of the web portal), as the fuzzer drives it. */
export interface Operation {
  method: string;
  /** The path template, `{id}` style. */
  path: string;
  group: string;
  query: { name: string; schema: JsonSchema }[];
  /** Top-level properties of the JSON body, when the document gives its schema. */
  body: Record<string, JsonSchema>;
  /** Statuses the document declares. */
  statuses: Set<number>;
}

export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  format?: string;
  maximum?: number;
  properties?: Record<string, JsonSchema>;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
}

/**
 * Who calls: a label only, resolved to a real secret when the request is sent, so that a
 * counterexample printed by fast-check never holds the session token or the API key.
 */
export type Credential =
  | 'none'
  | 'session-bearer'
  | 'session-cookie'
  | 'key-header'
  | 'key-bearer'
  | { forged: 'key' | 'session' | 'basic' | 'cookie'; value: string };

export type Body =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown; contentType: string }
  | { kind: 'raw'; text: string; contentType: string | null }
  /** A large body within the gateway's limit: built at send time, not by fast-check. */
  | { kind: 'big'; bytes: number; contentType: string };

export interface FuzzRequest {
  /** `METHOD /path/template` of the operation (a key of the fuzzer's table, short in a counterexample). */
  op: string;
  method: string;
  path: string;
  /** Already encoded `name=value` pairs (names may repeat). */
  query: [string, string][];
  credential: Credential;
  body: Body;
  /** The client address the gateway sees (TRUST_PROXY loopback), so budgets per address spread. */
  forwardedFor: string;
}

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'];

/** Strings a parser meets badly: unicode, control characters, huge, empty, numbers in the wrong place. */
const hostileString = fc.oneof(
  fc.constantFrom('', ' ', '0', '-1', '1e309', 'NaN', 'null', 'true', '[]', '{}', '%00', '../..', '\u0000'),
  fc.constantFrom('9'.repeat(40), '-9007199254740993', '2026-02-30T25:61:00Z', 'ä€𝄞', 'DROP TABLE x;--'),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ maxLength: 20 }),
  fc.nat({ max: 20_000 }).map((n) => 'x'.repeat(n)),
  fc.uuid(),
  fc.integer().map(String),
  fc.double().map(String),
);

const HOUR = 3_600_000;
/** A whole hour from two hours ago to 40 days ahead: consulting slots and windows are whole hours. */
const instant = fc
  .integer({ min: -2, max: 24 * 40 })
  .map((h) => new Date((Math.ceil(Date.now() / HOUR) + h) * HOUR).toISOString());
const hostname = fc.oneof(fc.constantFrom('example.com', 'fuzz.example.org'), fc.domain());

/** A value the schema accepts, mostly; `name` tells a hostname or a time from other strings. */
function schemaValue(schema: JsonSchema | undefined, name = ''): fc.Arbitrary<unknown> {
  if (!schema) return fc.jsonValue({ maxDepth: 2 });
  if (schema.enum?.length) return fc.constantFrom(...schema.enum);
  if (schema.const !== undefined) return fc.constant(schema.const);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives?.length) return fc.oneof(...alternatives.map((a) => schemaValue(a, name)));
  const type = (Array.isArray(schema.type) ? schema.type[0] : schema.type) ?? 'any';
  switch (type) {
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -10, max: Math.min(schema.maximum ?? 1000, 2 ** 31) });
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'string':
      if (schema.format === 'date-time' || name.endsWith('_at') || ['from', 'to', 'before'].includes(name))
        return instant;
      if (schema.format === 'hostname' || name === 'domain') return hostname;
      return fc.oneof(
        fc.constantFrom('example.com', 'BTC-USD', 'BTC', 'free', 'pro'),
        fc.string({ maxLength: 12 }),
      );
    case 'object':
      return objectOf(schema.properties ?? {});
    default: // 'any', or a type the fuzzer does not generate: any JSON value
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** A body shaped like the schema, each field either well-typed or hostile, some dropped, some extra. */
/** Every field, well-typed, nothing extra (strict schemas refuse extras): the write behind the validation runs. */
function exactObjectOf(properties: Record<string, JsonSchema>): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(
    Object.fromEntries(Object.entries(properties).map(([name, schema]) => [name, schemaValue(schema, name)])),
  );
}

function objectOf(properties: Record<string, JsonSchema>): fc.Arbitrary<Record<string, unknown>> {
  const exact = exactObjectOf(properties);
  const fields = Object.fromEntries(
    Object.entries(properties).map(([name, schema]) => [
      name,
      fc.oneof(
        { weight: 3, arbitrary: schemaValue(schema) },
        { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
        { weight: 1, arbitrary: hostileString },
      ),
    ]),
  );
  const mutated = fc
    .tuple(
      fc.record(fields, { requiredKeys: [] }),
      fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
    )
    .map(([known, extra]) => ({ ...extra, ...known }));
  return fc.oneof({ weight: 2, arbitrary: exact }, { weight: 3, arbitrary: mutated });
}

function pathArb(op: Operation): fc.Arbitrary<string> {
  const segments = op.path.split('/');
  if (!segments.some((s) => s.startsWith('{'))) {
    return fc.oneof(
      { weight: 9, arbitrary: fc.constant(op.path) },
      { weight: 1, arbitrary: fc.constantFrom(`${op.path}/`, `${op.path}/extra`, op.path.toUpperCase()) },
    );
  }
  const param = fc.oneof(
    fc.uuid(),
    fc.constantFrom(
      '1',
      '0',
      '-1',
      'null',
      '..',
      '%2e%2e',
      '%2F',
      '%00',
      '%E2%82%AC',
      '%FF',
      'a'.repeat(300),
    ),
    fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/),
    fc.string({ maxLength: 20 }).map(encodeURIComponent),
  );
  return fc
    .array(param, { minLength: segments.length, maxLength: segments.length })
    .map((values) => segments.map((s, i) => (s.startsWith('{') ? values[i]! : s)).join('/'));
}

function queryArb(op: Operation): fc.Arbitrary<[string, string][]> {
  const known = op.query.map((q) =>
    fc.tuple(
      fc.constant(q.name),
      fc.oneof(
        { weight: 2, arbitrary: schemaValue(q.schema, q.name).map(String) },
        { weight: 1, arbitrary: hostileString },
      ),
    ),
  );
  const unknown = fc.tuple(
    fc.oneof(fc.constantFrom('api_key', 'cursor', 'limit', '__proto__'), fc.string({ maxLength: 10 })),
    hostileString,
  );
  const pair = known.length
    ? fc.oneof({ weight: 3, arbitrary: fc.oneof(...known) }, { weight: 1, arbitrary: unknown })
    : unknown;
  return fc
    .array(pair, { maxLength: 5 })
    .map((pairs) =>
      pairs.map(([n, v]) => [encodeURIComponent(n), encodeURIComponent(v)] as [string, string]),
    );
}

const credentialArb: fc.Arbitrary<Credential> = fc.oneof(
  // The signed-in account most often: the routes' own rules lie behind the session check.
  { weight: 3, arbitrary: fc.constant<Credential>('session-bearer') },
  fc.constantFrom<Credential>('none', 'session-cookie', 'key-header', 'key-bearer'),
  fc.record({
    forged: fc.constantFrom('key' as const, 'session' as const, 'basic' as const, 'cookie' as const),
    // Header values must be bytes: fetch refuses anything else before sending.
    value: fc.oneof(
      fc.stringMatching(/^mk_live_[A-Za-z0-9]{0,48}$/),
      fc.string({
        unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
        maxLength: 80,
      }),
    ),
  }),
);

const JSON_TYPES = ['application/json', 'application/json; charset=utf-8', 'application/merge-patch+json'];
const OTHER_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json; charset=latin1',
  '',
];

function bodyArb(op: Operation): fc.Arbitrary<Body> {
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant<Body>({ kind: 'none' }) },
    {
      weight: 5,
      arbitrary: fc.record({
        kind: fc.constant('json' as const),
        value: objectOf(op.body),
        contentType: fc.constantFrom(...JSON_TYPES),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('json' as const),
        value: fc.jsonValue({ maxDepth: 3 }),
        contentType: fc.constantFrom(...JSON_TYPES),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('raw' as const),
        text: fc.oneof(
          fc.constantFrom(
            '{',
            '{"a":',
            '[1,2',
            'null',
            '"x"',
            '{"__proto__":{"x":1}}',
            'email=a@b.c&password=x',
          ),
          fc.string({ maxLength: 60 }),
        ),
        contentType: fc.oneof(fc.constantFrom(...JSON_TYPES, ...OTHER_TYPES), fc.constant(null)),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('big' as const),
        bytes: fc.integer({ min: 64 * 1024, max: 1_000_000 }),
        contentType: fc.constantFrom('application/json', 'text/plain'),
      }),
    },
  );
}

const forwardedForArb = fc
  .tuple(fc.nat(255), fc.nat(255), fc.nat(255))
  .map(([a, b, c]) => `10.${a}.${b}.${c}`);

/** A request to one operation: mostly its own method, sometimes a wrong one. */
export function requestArb(op: Operation): fc.Arbitrary<FuzzRequest> {
  return fc.record({
    op: fc.constant(`${op.method} ${op.path}`),
    method: fc.oneof(
      { weight: 6, arbitrary: fc.constant(op.method) },
      { weight: 1, arbitrary: fc.constantFrom(...METHODS) },
    ),
    path: pathArb(op),
    query: queryArb(op),
    credential: credentialArb,
    body: bodyArb(op),
    forwardedFor: forwardedForArb,
  });
}

/**
 * A write as the signed-in account makes it (its own method, an exact body), so that purchases,
 * bookings, domains and service requests really happen and the invariants have rows to check.
 */
export function writeArb(op: Operation): fc.Arbitrary<FuzzRequest> {
  return fc.record({
    op: fc.constant(`${op.method} ${op.path}`),
    method: fc.constant(op.method),
    path: pathArb(op),
    query: fc.constant([]),
    credential: fc.constant<Credential>('session-bearer'),
    body: fc.record({
      kind: fc.constant('json' as const),
      value: exactObjectOf(op.body),
      contentType: fc.constant('application/json'),
    }),
    forwardedFor: forwardedForArb,
  });
}

/** Operations of the document, the path template and method of each, grouped by the path's first segments. */
export function operationsOf(openapi: {
  paths: Record<string, Record<string, OpenApiOperation>>;
}): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(openapi.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const body = op.requestBody?.content?.['application/json']?.schema?.properties ?? {};
      ops.push({
        method: method.toUpperCase(),
        path,
        group: op.tags?.includes('data') ? 'data' : groupOf(path),
        query: (op.parameters ?? [])
          .filter((p) => p.in === 'query')
          .map((p) => ({ name: p.name, schema: p.schema ?? {} })),
        body,
        statuses: new Set(Object.keys(op.responses ?? {}).map(Number)),
      });
    }
  }
  return ops;
}

export interface OpenApiOperation {
  parameters?: { in: string; name: string; schema?: JsonSchema }[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
  responses?: Record<string, unknown>;
  tags?: string[];
}

function groupOf(path: string): string {
  const [first, second] = path.split('/').filter(Boolean);
  if (first === 'auth') return 'auth';
  if (first !== 'v1') return 'documents';
  if (second === 'data') return 'data';
  if (['account', 'agent', 'keys'].includes(second!))
    return path.startsWith('/v1/account/billing') ? 'billing' : 'account';
  if (['credits', 'billing'].includes(second!)) return 'billing';
  return second!;
}
