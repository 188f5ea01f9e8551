import { PLANS, type Catalog } from '@meridian/contracts';
import { baseOf, liveMetrics } from './catalog-facts.js';

export interface DescriptorSettings {
  contact: string;
  /** The stdio server's install command (AGENT_INSTALL_COMMAND), once a package is published. */
  installCommand?: string;
  publicBaseUrl?: string;
  /** The catalogue of the data service's mode (catalogFor(INGEST_MODE)). */
  catalog: Catalog;
}

/** The agent tools of data-api-interface 4.6, served by the MCP edge (mcp/). */
export const AGENT_TOOLS = [
  'browse_catalog',
  'get_metric',
  'reference_price',
  'ohlcv',
  'recent_trades',
  'option_chain',
] as const;

/** The MCP protocol revision the server negotiates at best (@modelcontextprotocol/sdk 1.32.2). */
export const MCP_PROTOCOL_VERSION = '2025-11-25';

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
    status: 'available',
    protocol_version: MCP_PROTOCOL_VERSION,
    transports: [
      { type: 'streamable-http', url: `${base}/mcp`, stateless: true },
      { type: 'stdio', command: settings.installCommand ?? fromCheckout(base) },
    ],
    install: installOf(settings.installCommand, base),
    authentication: {
      schemes: ['bearer', 'x-api-key'],
      detail:
        'Send your API key as Authorization: Bearer <key> or X-API-Key on the MCP request (stdio: --key); the tools read with it, under its plan and rate limit. Pay-per-call (x402) is plain HTTP only.',
      docs: `${base}/llms.txt`,
    },
    tools: { status: 'available', names: AGENT_TOOLS },
    resources: ['meridian://catalog', 'meridian://symbols', 'meridian://venues'],
    catalog: {
      url: `${base}/v1/catalog`,
      metrics: liveMetrics(settings.catalog).length,
      plans: PLANS,
      categories: [...new Set(settings.catalog.products.map((p) => p.category))].map((category) => ({
        category,
        products: settings.catalog.products.filter((p) => p.category === category).map((p) => p.product),
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

/** The stdio server as a checkout of the repository runs it (the root `mcp` script). */
const fromCheckout = (base: string) => `npx -y pnpm@10 mcp --key <YOUR_API_KEY> --api-url ${base}`;

/**
 * No package of the stdio server is published unless the deployment names one: a descriptor then
 * offers no install command that cannot work, but says what does.
 */
function installOf(command: string | undefined, base: string) {
  if (command) return { status: 'available', command };
  return {
    status: 'unavailable',
    detail: `No package of the stdio server is published. Connect an MCP host to the Streamable HTTP endpoint ${base}/mcp, or run the stdio server from a checkout of the repository (after \`npx -y pnpm@10 install\`): ${fromCheckout(base)}.`,
    from_checkout: fromCheckout(base),
  };
}
