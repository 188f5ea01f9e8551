import type { Logger, Metrics } from '@meridian/observability';
import type { DataApi } from './adapters/data-api.js';
import type { ServedCatalog } from './adapters/served-catalog.js';

export const SERVICE = 'mcp';

/** What main.ts (or stdio.ts) builds once: the settings it needs, the API client, observability. */
export interface Deps {
  logger: Logger;
  metrics: Metrics;
  api: DataApi;
  /** HMAC key of this server's cursors. */
  cursorSecret: string;
  /** The catalogue the deployment serves, read through the API: the tools' enumerations. */
  catalog: ServedCatalog;
  /** Peers whose X-Forwarded-For is believed (the gateway's network); HTTP edge only. */
  trustProxy?: string;
  /** CLIENT_ADDRESS_PROXY: the proxy whose X-Forwarded-For names the client; HTTP edge only. */
  clientAddressProxies?: readonly string[];
  /** The internal secret's key, to vouch for each caller's address to the gateway; HTTP edge only. */
  clientAddressKey?: Uint8Array;
}
