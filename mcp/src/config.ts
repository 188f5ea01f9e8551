import { z } from 'zod';
import { baseConfigSchema, loadConfig } from '@meridian/runtime';

const url = z.string().url();

/** The public API the stdio command talks to when told nothing else (data-api-interface {base_url}). */
export const PUBLIC_API_URL = 'https://api.meridian.example';

/** The Streamable HTTP edge (behind the gateway's `/mcp`). */
export const configSchema = baseConfigSchema
  .pick({ PORT: true, HOST: true, LOG_LEVEL: true, TRUST_PROXY: true, INTERNAL_AUTH_SECRET: true })
  .extend({
    /** The public data API the tools call with the caller's key: the gateway. */
    MERIDIAN_API_URL: url.default('http://127.0.0.1:8080'),
    /** How long a tool waits for the data API before it answers a retryable tool error. */
    UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
    /**
     * The proxy in front of this edge (the gateway) whose X-Forwarded-For names the MCP client:
     * exact addresses, `loopback` or `uniquelocal`, comma-separated. Unset: the socket's peer is
     * the client, and no header is read.
     */
    CLIENT_ADDRESS_PROXY: z.string().optional(),
    /** HMAC key of the cursors this server writes; set the same on every replica (unset: random per start). */
    MCP_CURSOR_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  });

export type Config = z.infer<typeof configSchema>;

export function parseConfig(env: Record<string, string | undefined>): Config {
  return loadConfig(configSchema, env, { PORT: '8087' });
}

/** The stdio command: `meridian-mcp [mcp] --key <key> [--api-url <url>]`. */
export const stdioConfigSchema = z.object({
  key: z.string().min(1).max(512).optional(),
  apiUrl: url.default(PUBLIC_API_URL),
  LOG_LEVEL: baseConfigSchema.shape.LOG_LEVEL.default('warn'),
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  MCP_CURSOR_SECRET: z.string().min(32).optional(),
});

export type StdioConfig = z.infer<typeof stdioConfigSchema>;

const USAGE = 'usage: meridian-mcp [mcp] [--key <API key>] [--api-url <url>]';

/** Arguments first, then MERIDIAN_API_KEY / MERIDIAN_API_URL; `mcp` and a lone `--` are skipped. */
export function parseStdioConfig(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): StdioConfig {
  const args = argv.filter((a, i) => a !== '--' && !(i === 0 && a === 'mcp'));
  const options: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const [name, inline] = args[i]!.split(/=(.*)/s, 2) as [string, string | undefined];
    if (name !== '--key' && name !== '--api-url') throw new Error(`unknown argument ${name}\n${USAGE}`);
    const value = inline ?? args[++i];
    if (value === undefined) throw new Error(`${name} needs a value\n${USAGE}`);
    options[name] = value;
  }
  return loadConfig(stdioConfigSchema, {
    key: options['--key'] ?? env.MERIDIAN_API_KEY,
    apiUrl: options['--api-url'] ?? env.MERIDIAN_API_URL,
    LOG_LEVEL: env.LOG_LEVEL,
    UPSTREAM_TIMEOUT_MS: env.UPSTREAM_TIMEOUT_MS,
    MCP_CURSOR_SECRET: env.MCP_CURSOR_SECRET,
  });
}
