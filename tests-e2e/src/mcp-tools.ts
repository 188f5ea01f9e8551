import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** What an MCP tool answers as structured content: the API's envelope, or its typed refusal. */
export interface Structured {
  data?: unknown;
  meta?: { truncated: boolean; next_cursor: string | null; hint: string; returned?: number };
  error_category?: string;
  status?: number;
  detail?: string;
  what_to_do?: string;
}

export const structured = (r: unknown) => (r as CallToolResult).structuredContent as Structured;

/** Retries while the replay has not yet stored what the metric reads (404 until it has). */
export async function callUntilServed(client: Client, name: string, args: Record<string, unknown>) {
  for (let i = 0; ; i++) {
    const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
    if (!r.isError || structured(r).status !== 404 || i === 60) return r;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
