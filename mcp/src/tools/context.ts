import type { CallerCredentials, DataApi } from '../adapters/data-api.js';
import type { Served } from '../adapters/served-catalog.js';

/** What one MCP session's tools work with: the API client and the caller's credentials. */
export interface ToolContext {
  api: DataApi;
  caller: CallerCredentials;
  /** HMAC key of the cursors this server writes (MCP_CURSOR_SECRET). */
  cursorSecret: string;
  /** The catalogue the deployment serves: the enumerations of every tool's arguments. */
  served: Served;
}
