#!/usr/bin/env node
// The stdio MCP server: `meridian-mcp [mcp] --key <API key> [--api-url <url>]`. Resolves to
// src/ under `--conditions=source` (tsx, from the repository) and to dist/ once built.
import { runStdio } from '@meridian/mcp/stdio';

runStdio(process.argv.slice(2), process.env).catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
