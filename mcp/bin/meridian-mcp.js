#!/usr/bin/env node
// The stdio MCP server: `meridian-mcp [mcp] --key <API key> [--api-url <url>]`. Resolves to
// src/ under `--conditions=source` (tsx, from the repository) and to dist/ once built.
import { runStdio } from '@meridian/mcp/stdio';

runStdio(process.argv.slice(2), process.env).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
