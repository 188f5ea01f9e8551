import {
  FILTER_PARAMETERS,
  SOLANA_MAINNET,
  USDC_MINT,
  X402_MAX_TIMEOUT_S,
  X402_VERSION,
  replayStatement,
  type Catalog,
} from '@meridian/contracts';
import { SERIES_PARAMETERS, dataQuerySchema, envelopeSchema, jsonSchemaOf } from './data-schemas.js';
import { priceOf, type X402Settings } from './payment-required.js';
import { baseOf, pricedPaths } from './catalog-facts.js';

/**
 * GET /.well-known/x402: every priced endpoint with its input and output schema, price and
 * network, so a crawler or an agent can find what it can buy without calling each route.
 */
export function x402Manifest(settings: X402Settings, catalog: Catalog, publicBaseUrl?: string) {
  const base = baseOf(publicBaseUrl);
  const input = jsonSchemaOf(dataQuerySchema, 'input');
  const withoutSeries = withoutProperties(input, SERIES_PARAMETERS);
  const output = jsonSchemaOf(envelopeSchema);
  const replay = replayStatement(catalog);
  return {
    x402Version: X402_VERSION,
    ...(replay ? { replay } : {}),
    network: settings.network ?? SOLANA_MAINNET,
    asset: settings.asset ?? USDC_MINT,
    payTo: settings.payTo,
    feePayer: settings.feePayer,
    maxTimeoutSeconds: X402_MAX_TIMEOUT_S,
    headers: {
      request: ['PAYMENT-SIGNATURE', 'X-PAYMENT'],
      challenge: 'PAYMENT-REQUIRED',
      receipt: 'PAYMENT-RESPONSE',
    },
    resources: pricedPaths(catalog).map(({ path, hit, aliasOf }) => ({
      resource: `${base}${path}`,
      ...(aliasOf ? { alias_of: `${base}${aliasOf}` } : {}),
      method: 'GET',
      description: hit.metric.description,
      mimeType: 'application/json',
      value_shape: hit.metric.value_shape,
      // A series-shaped metric always answers a series, so every read of it is a time-series read;
      // `series=true` is priced (and answered) only where the catalogue offers a series.
      price: {
        read: String(priceOf(hit.metric.value_shape === 'series')),
        ...(hit.metric.series ? { series: String(priceOf(true)) } : {}),
      },
      scheme: 'exact',
      // The row filters (option_type, expiry) only where the catalogue lists them for the metric.
      inputSchema: withoutProperties(
        hit.metric.series ? input : withoutSeries,
        new Set(FILTER_PARAMETERS.filter((f) => !hit.metric.filters?.includes(f))),
      ),
      outputSchema: output,
    })),
  };
}

/** The input schema of a metric that has no series answer: no `series` and no series shaping. */
function withoutProperties(schema: Record<string, unknown>, names: ReadonlySet<string>) {
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  return {
    ...schema,
    properties: Object.fromEntries(Object.entries(properties).filter(([name]) => !names.has(name))),
  };
}
