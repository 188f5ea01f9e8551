import {
  SOLANA_MAINNET,
  USDC_MINT,
  X402_DISCOVERY_EXTENSION,
  X402_MAX_TIMEOUT_S,
  X402_PRICES,
  X402_VERSION,
  type CatalogHit,
  type PaymentRequired,
} from '@meridian/contracts';
import { dataQuerySchema, envelopeSchema, exampleEnvelope, jsonSchemaOf } from './data-schemas.js';

export interface X402Settings {
  payTo: string;
  feePayer: string;
  network?: string;
  asset?: string;
}

export const NO_PAYMENT = 'No API key and no PAYMENT-SIGNATURE (or X-PAYMENT) header was sent.';
export const PAYMENT_NOT_ENABLED =
  'Payment verification is not enabled on this deployment; use an API key (Authorization: Bearer or X-API-Key).';

let discoverySchema: Record<string, unknown> | undefined;

/** JSON Schema of the discovery `info`: the query the endpoint takes and the envelope it answers. */
function discoveryInfoSchema(): Record<string, unknown> {
  discoverySchema ??= {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      input: {
        type: 'object',
        properties: {
          type: { const: 'http' },
          method: { const: 'GET' },
          queryParams: jsonSchemaOf(dataQuerySchema, 'input'),
        },
        required: ['type', 'method'],
      },
      output: {
        type: 'object',
        properties: { type: { const: 'json' }, example: jsonSchemaOf(envelopeSchema) },
        required: ['type'],
      },
    },
    required: ['input', 'output'],
  };
  return discoverySchema;
}

export function priceOf(series: boolean): number {
  return series ? X402_PRICES.series : X402_PRICES.read;
}

/** The payment-required object of data-api-interface 4.4 for one priced call. */
export function paymentRequired(
  hit: CatalogHit,
  url: string,
  series: boolean,
  settings: X402Settings,
  error = NO_PAYMENT,
): PaymentRequired {
  const entity = hit.product.entities[0];
  return {
    x402Version: X402_VERSION,
    error,
    resource: { url, mimeType: 'application/json', description: hit.metric.description },
    accepts: [
      {
        scheme: 'exact',
        network: settings.network ?? SOLANA_MAINNET,
        amount: String(priceOf(series)),
        asset: settings.asset ?? USDC_MINT,
        payTo: settings.payTo,
        maxTimeoutSeconds: X402_MAX_TIMEOUT_S,
        extra: { feePayer: settings.feePayer },
      },
    ],
    extensions: {
      [X402_DISCOVERY_EXTENSION]: {
        info: {
          input: {
            type: 'http',
            method: 'GET',
            queryParams: { ...(entity ? { entity } : {}), ...(series ? { series: 'true' } : {}) },
          },
          output: { type: 'json', example: exampleEnvelope(hit) },
        },
        schema: discoveryInfoSchema(),
      },
    },
  };
}
