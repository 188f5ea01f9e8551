import { createHash } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Served } from '../adapters/served-catalog.js';
import type { ServedProduct } from '../domain/served-catalog.js';
import { catalogResource, symbolsResource, venuesResource } from '../domain/reference.js';

/** How long a host may keep a resource before reading it again (the catalogue changes with a deploy). */
export const RESOURCE_MAX_AGE_S = 3600;

interface Reference {
  name: string;
  uri: string;
  title: string;
  description: string;
  body: (products: readonly ServedProduct[]) => unknown;
}

const REFERENCES: Reference[] = [
  {
    name: 'catalog',
    uri: 'meridian://catalog',
    title: 'Metric catalogue',
    description: 'Every category, product and metric with status, plan, shape, unit and cadence.',
    body: catalogResource,
  },
  {
    name: 'symbols',
    uri: 'meridian://symbols',
    title: 'Symbols (entities) per product',
    description: 'The entity identifiers each product takes, its default, and the markets each venue lists.',
    body: symbolsResource,
  },
  {
    name: 'venues',
    uri: 'meridian://venues',
    title: 'Venues and sources',
    description: 'The venues and upstream sources behind each product.',
    body: venuesResource,
  },
];

/**
 * The reference resources, marked cacheable: `annotations.lastModified` (when the served
 * catalogue was read) and `_meta` with a content hash (etag) and a max age, on the listing and
 * on every read.
 */
export function registerResources(server: McpServer, served: Served): void {
  for (const ref of REFERENCES) {
    const text = JSON.stringify(ref.body(served.products));
    const cache = {
      'meridian/cacheable': true,
      'meridian/max_age_s': RESOURCE_MAX_AGE_S,
      'meridian/etag': createHash('sha256').update(text).digest('hex').slice(0, 32),
    };
    const annotations = {
      audience: ['assistant' as const, 'user' as const],
      priority: 0.5,
      lastModified: served.loadedAt.toISOString(),
    };
    server.registerResource(
      ref.name,
      ref.uri,
      {
        title: ref.title,
        description: ref.description,
        mimeType: 'application/json',
        annotations,
        _meta: cache,
      },
      (uri) => ({
        contents: [
          {
            uri: uri.href,
            mimeType: 'application/json',
            text,
            _meta: { ...cache, lastModified: annotations.lastModified },
          },
        ],
      }),
    );
  }
}
