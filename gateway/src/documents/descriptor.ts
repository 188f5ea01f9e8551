import { CATALOG, PLANS } from '@meridian/contracts';
import { baseOf, liveMetrics } from './catalog-facts.js';

export interface DescriptorSettings {
  contact: string;
  installCommand: string;
  publicBaseUrl?: string;
}

/**
 * GET /.well-known/mcp.json: the agent descriptor. The agent tools of data-api-interface 4.6 are
 * MCP tools, so the descriptor follows the MCP server-card discovery proposal's well-known name
 * (SEP-1649 / SEP-2127), with the catalogue summary, the install command and a contact added.
 */
export function agentDescriptor(settings: DescriptorSettings) {
  const base = baseOf(settings.publicBaseUrl);
  return {
    name: 'meridian-data',
    description:
      'Reference data in 12 categories with provenance: crypto, FX, stocks, commodities, macro, weather, sports, medical and novelty feeds.',
    version: '1.0.0',
    transports: [{ type: 'streamable-http', url: `${base}/mcp` }],
    install: { command: settings.installCommand },
    authentication: {
      schemes: ['bearer', 'x-api-key', 'x402'],
      docs: `${base}/llms.txt`,
    },
    tools: ['browse_catalog', 'get_metric', 'reference_price', 'ohlcv', 'recent_trades', 'option_chain'],
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
    },
    contact: settings.contact,
  };
}
