import { CATALOG, PLANS } from '@meridian/contracts';
import { baseOf, liveMetrics } from './catalog-facts.js';

export interface DescriptorSettings {
  contact: string;
  /** Unset until the MCP server ships. */
  installCommand?: string;
  publicBaseUrl?: string;
}

/** The agent tools of data-api-interface 4.6, which the MCP server will offer. */
export const AGENT_TOOLS = [
  'browse_catalog',
  'get_metric',
  'reference_price',
  'ohlcv',
  'recent_trades',
  'option_chain',
] as const;

const NOT_YET = 'not_yet_available';

/**
 * GET /.well-known/mcp.json: the agent descriptor. The agent tools of data-api-interface 4.6 are
 * MCP tools, so the descriptor follows the MCP server-card discovery proposal's well-known name
 * (SEP-1649 / SEP-2127), with the catalogue summary, the install command and a contact added.
 * No MCP server runs yet: the descriptor says so instead of naming an endpoint that 404s or a
 * package nobody published, and points agents at the HTTP API they can use today.
 */
export function agentDescriptor(settings: DescriptorSettings) {
  const base = baseOf(settings.publicBaseUrl);
  return {
    name: 'meridian-data',
    description:
      'Reference data in 12 categories with provenance: crypto, FX, stocks, commodities, macro, weather, sports, medical and novelty feeds.',
    version: '1.0.0',
    status: NOT_YET,
    status_detail:
      'The MCP server is not served yet: no transport, and the tools below are planned. Use the HTTP API (openapi.json, llms.txt) meanwhile.',
    transports: [],
    install: settings.installCommand
      ? { status: 'available', command: settings.installCommand }
      : { status: NOT_YET, command: null },
    authentication: {
      schemes: ['bearer', 'x-api-key', 'x402'],
      docs: `${base}/llms.txt`,
    },
    tools: { status: NOT_YET, planned: AGENT_TOOLS },
    catalog: {
      url: `${base}/v1/catalog`,
      metrics: liveMetrics().length,
      plans: PLANS,
      categories: [...new Set(CATALOG.map((p) => p.category))].map((category) => ({
        category,
        products: CATALOG.filter((p) => p.category === category).map((p) => p.product),
      })),
    },
    documents: {
      openapi: `${base}/openapi.json`,
      llms: `${base}/llms.txt`,
      x402: `${base}/.well-known/x402`,
      prices: `${base}/v1/billing/prices`,
    },
    contact: settings.contact,
  };
}
