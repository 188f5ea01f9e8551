import type { RequestHeaders } from './request-headers.js';
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
  /** Unset in the settings when the facilitator's is used (asked of the x402 service). */
  feePayer?: string;
  network?: string;
  asset?: string;
}

export const NO_PAYMENT = 'No API key and no PAYMENT-SIGNATURE (or X-PAYMENT) header was sent.';

/** The `error` of the challenge answered again for a payment refused or not settled: x402's reason first. */
export function paymentRefusal(reason: string, detail: string): string {
  return `${reason}: ${detail} Sign a new payment and send it in PAYMENT-SIGNATURE (or X-PAYMENT).`;
}

/** The payment header: PAYMENT-SIGNATURE (x402 v2), else X-PAYMENT (the v1 name, still accepted). */
export function paymentHeaderOf(headers: RequestHeaders): string | undefined {
  const value = headers['payment-signature'] ?? headers['x-payment'];
  return Array.isArray(value) ? value[0] : value;
}

/** Standard base64 of the JSON, as PAYMENT-REQUIRED and PAYMENT-RESPONSE carry it. */
export function headerValue(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64');
}

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
  settings: X402Settings & { feePayer: string },
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
