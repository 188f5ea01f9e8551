import { PLAN_RATE_LIMITS, PLANS, X402_PRICES, replayStatement, type Catalog } from '@meridian/contracts';
import { baseOf } from './catalog-facts.js';

/** GET /llms.txt: what a language-model agent needs to call the API, generated from the catalogue. */
/** The entities listed are those of the data service's mode (catalogFor(INGEST_MODE)). */
export function llmsTxt(catalog: Catalog, publicBaseUrl?: string): string {
  const base = baseOf(publicBaseUrl);
  const lines = [
    '# Meridian data API',
    '',
    '> Reference data in 12 categories over HTTP. Every answer is the envelope {data, meta, provenance}:',
    '> the value, a confidence score and the exact sources, timestamps and derivation method.',
    '',
    ...[replayStatement(catalog) ?? []].flat().flatMap((said) => [`**Replay.** ${said}`, '']),
    `- Data endpoint: GET ${base}/v1/data/{category}/{product}/{metric}?entity=&source=&series=&interval=`,
    '- Auth: header `Authorization: Bearer <API_KEY>` or `X-API-Key: <API_KEY>`; no key on a priced',
    `  endpoint answers 402 with an x402 v2 challenge (USDC on Solana: ${X402_PRICES.read} atomic per read,`,
    `  ${X402_PRICES.series} per time-series read).`,
    `- Plans and requests per minute: ${PLANS.map((p) => `${p} ${PLAN_RATE_LIMITS[p]}`).join(', ')}.`,
    '- Errors are application/problem+json with error_category: unauthorized (401, get a key),',
    '  tier_forbidden (403, upgrade), not_yet_available (404, planned metric), rate_limit (429, wait',
    '  retry_after seconds). Rate-limit headers: RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset.',
    `- Contract: ${base}/openapi.json; catalogue: ${base}/v1/catalog; demo: ${base}/v1/demo;`,
    `  x402 manifest: ${base}/.well-known/x402; prices: ${base}/v1/billing/prices.`,
    `- Agent tools (MCP): Streamable HTTP at ${base}/mcp with your key as Authorization: Bearer or X-API-Key; how to run the stdio server and the tools in ${base}/.well-known/mcp.json.`,
    '',
    '## Catalogue (path: metrics [minimum plan])',
    '',
  ];
  for (const p of catalog.products) {
    const live = p.metrics.filter((m) => m.status === 'live');
    const entities = p.entities.length ? ` entities: ${p.entities.join(', ')}` : '';
    lines.push(`- ${p.category}/${p.product} [${p.min_tier}]:${entities}`);
    for (const m of live) {
      const gate = m.min_tier !== p.min_tier ? ` [${m.min_tier}]` : '';
      lines.push(`  - ${m.metric} (${m.value_shape}, ${m.unit})${gate}: ${m.description}`);
    }
  }
  lines.push('');
  return lines.join('\n');
}
