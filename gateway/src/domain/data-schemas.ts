import { z } from 'zod';
import { SERIES_SHAPING_PARAMETERS, type CatalogHit } from '@meridian/contracts';

/**
 * Query parameters of the data endpoint (data-api-interface 4.1): the contracts' schema, the one
 * the data service parses with, so the documents list exactly what it accepts.
 */
export { dataQuerySchema } from '@meridian/contracts';

/** The parameters only a series answer takes (data-api-interface 4.1); `series` itself asks for one. */
export const SERIES_PARAMETERS: ReadonlySet<string> = new Set(['series', ...SERIES_SHAPING_PARAMETERS]);

/** The envelope of every data answer (data-api-interface 2.1). */
export const envelopeSchema = z.object({
  data: z.unknown().describe('scalar, object or series, by the metric value_shape'),
  meta: z
    .object({
      as_of: z.string().describe('ISO 8601 timestamp'),
      venues: z.array(z.string()),
      staleness_ms: z.number().int(),
      confidence: z.number().min(0).max(1),
      cache_ttl_s: z.number().int().optional(),
      has_more: z.boolean().optional(),
      next_cursor: z.string().nullable().optional().describe('null on the last page'),
      truncated: z.boolean().optional(),
      returned: z.number().int().optional(),
      hint: z.string().optional(),
      replay: z
        .object({
          live: z.literal(false),
          recorded: z.string().describe('the recorded markets or recording files played'),
          kind: z
            .enum(['recording', 'sample', 'mixed'])
            .describe('a real recording, a hand-written sample in the upstream format, or both'),
          recorded_at: z.string().describe('original time of the newest row or snapshot behind the answer'),
          played_at: z.string().describe('the time it is served as (as_of)'),
        })
        .optional()
        .describe('present when the answer is played from a recording, not a live print'),
    })
    .loose(),
  provenance: z
    .object({
      sources: z.array(
        z
          .object({
            venue: z.string(),
            ts: z.string(),
            symbol: z.string().optional(),
            recorded_ts: z
              .string()
              .optional()
              .describe('under replay: the original time of the row played at ts'),
          })
          .loose(),
      ),
      method: z.string(),
      excluded: z
        .array(z.object({ venue: z.string(), reason: z.string() }).loose())
        .optional()
        .describe('venues left out of the value, each with why'),
    })
    .loose(),
});

/** An illustrative answer of a metric, for discovery documents; the values are placeholders. */
export function exampleEnvelope(hit: CatalogHit): z.infer<typeof envelopeSchema> {
  const venue = hit.product.sources[0] ?? 'source';
  const ts = '2026-01-01T00:00:00.000Z';
  const data =
    hit.metric.value_shape === 'scalar'
      ? 0
      : hit.metric.value_shape === 'series'
        ? [{ ts, value: 0 }]
        : { value: 0, unit: hit.metric.unit };
  return {
    data,
    meta: { as_of: ts, venues: [venue], staleness_ms: 0, confidence: 1 },
    provenance: { sources: [{ venue, ts }], method: hit.metric.description },
  };
}

export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output' = 'output'): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return rest;
}
