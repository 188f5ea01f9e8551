import {
  dataQuerySchema,
  parameterRefusal,
  problem,
  queryParametersOf,
  resolveEntity,
  type CatalogHit,
  type Problem,
} from '@meridian/contracts';
import { HttpProblem, parseQuery } from '@meridian/http-kit';

/**
 * The 400 problem the data service would answer a keyless call's query with (unknown parameters,
 * values out of range, a source or entity the metric cannot serve), checked with the same contracts
 * before the x402 challenge: a typo is a 400, never a payment asked for another question.
 * Undefined when the query is one the data service takes.
 */
export function checkDataQuery(hit: CatalogHit, query: URLSearchParams): Problem | undefined {
  const fields: Record<string, string | string[]> = {};
  for (const name of new Set(query.keys())) {
    const values = query.getAll(name);
    fields[name] = values.length === 1 ? values[0]! : values;
  }
  try {
    const parsed = parseQuery(dataQuerySchema, fields, 'query', queryParametersOf(hit));
    // A venue the catalogue does not name may still be stored (data service README): the data
    // service, which can look, decides.
    if (parsed.source !== undefined && !hit.product.sources.includes(parsed.source)) return undefined;
    const resolved = resolveEntity(hit, parsed.entity, parsed.source);
    const refusal = resolved.ok ? parameterRefusal(hit, parsed) : resolved.refusal;
    if (!refusal) return undefined;
    return problem('validation_failed', `${refusal.path}: ${refusal.message}`, { errors: [refusal] });
  } catch (err) {
    if (err instanceof HttpProblem) return err.body;
    throw err;
  }
}
