import { z } from 'zod';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolError } from '../domain/tool-error.js';

/** Every tool reads only, the same call gives the same kind of answer, and the data is the world's. */
export const READ_ONLY = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: true,
} as const;

/** The envelope's meta as the tools answer it: the data API's, with the paging fields always present. */
export const metaOutput = z
  .looseObject({
    truncated: z.boolean().describe('true when whole rows were dropped to fit max_response_tokens'),
    next_cursor: z.string().nullable().describe('pass as cursor to continue; null when nothing is left'),
    hint: z.string().describe('one line on what was returned and how to continue'),
    returned: z.number().int().optional(),
    has_more: z.boolean().optional(),
    as_of: z.string().optional(),
    venues: z.array(z.string()).optional(),
    staleness_ms: z.number().optional(),
    confidence: z.number().optional(),
  })
  .describe('meta of the data API envelope (data-api-interface 2.1) plus the paging fields');

export const provenanceOutput = z
  .looseObject({
    sources: z.array(z.looseObject({ venue: z.string(), ts: z.string() })).optional(),
    method: z.string().optional(),
  })
  .describe('sources, timestamps and derivation method behind the value');

/**
 * The error of a tool call (`isError: true`) has the same structured form on every tool; the
 * output schema names both forms, since a host validates structuredContent on errors too.
 */
const errorFields = {
  error_category: z
    .string()
    .optional()
    .describe(
      'on errors: unauthorized, api_key_required, payment_required, tier_forbidden, rate_limit, not_yet_available, validation_failed, invalid_argument, invalid_cursor, upstream_unavailable',
    ),
  status: z.number().int().optional().describe('on errors: the HTTP status the data API answered'),
  detail: z.string().optional().describe('on errors: what went wrong'),
  what_to_do: z.string().optional().describe('on errors: the next step'),
  retry_after: z.number().optional().describe('on rate_limit errors: seconds to wait'),
};

/** The output schema of a tool whose answer is the data envelope with `data` of the given shape. */
export function envelopeOutput<T extends z.ZodType>(data: T) {
  return {
    data: data.optional(),
    meta: metaOutput.optional(),
    provenance: provenanceOutput.optional(),
    rate_limit: z
      .object({ limit: z.number(), remaining: z.number(), reset_s: z.number() })
      .optional()
      .describe("the key's rate-limit state after the call (RateLimit-* headers)"),
    ...errorFields,
  };
}

/** structuredContent and its text copy. */
export function success(structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

export function failure(error: ToolError): CallToolResult {
  const text = `${error.error_category} (${error.status}): ${error.detail} What to do: ${error.what_to_do}`;
  return { isError: true, content: [{ type: 'text', text }], structuredContent: { ...error } };
}
