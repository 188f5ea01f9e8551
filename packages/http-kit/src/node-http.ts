/**
 * node:http, looked up rather than imported. An ES import of node:http builds the module's
 * namespace, and reading its lazy exports (WebSocket, MessageEvent, CloseEvent) loads and compiles
 * node's own copy of undici and node:http2, which no service uses: ~12 MB more in a bare node just
 * after the import, 0.5-1.5 MB of it still resident in a service at idle (docs/memory.md). The lookup
 * reads only what is asked for. eslint.config.js refuses an ES import of node:http in runtime code.
 */
export const nodeHttp = process.getBuiltinModule('node:http');
