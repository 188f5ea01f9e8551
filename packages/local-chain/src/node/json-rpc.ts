/** JSON-RPC 2.0 over HTTP POST on loopback: single and batch requests, answered by a `Dispatch`. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RpcError } from './transaction-meta.js';

interface RpcRequest {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

/** Answers a method by name, or throws an RpcError (-32601 when it knows no such method). */
export type Dispatch = (method: string, params: unknown) => unknown;

async function handleHttp(dispatch: Dispatch, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'POST' }).end();
    return;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    reply(res, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    return;
  }
  if (Array.isArray(body)) {
    if (body.length === 0) {
      reply(res, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid request' } });
      return;
    }
    reply(
      res,
      body.map((one) => answer(dispatch, one as RpcRequest)),
    );
    return;
  }
  reply(res, answer(dispatch, body as RpcRequest));
}

function reply(res: ServerResponse, payload: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
}

function answer(dispatch: Dispatch, request: RpcRequest) {
  const id = typeof request?.id === 'number' || typeof request?.id === 'string' ? request.id : null;
  if (
    typeof request !== 'object' ||
    request === null ||
    request.jsonrpc !== '2.0' ||
    typeof request.method !== 'string'
  )
    return { jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid request' } };
  try {
    return { jsonrpc: '2.0', id, result: dispatch(request.method, request.params) };
  } catch (err) {
    if (err instanceof RpcError)
      return {
        jsonrpc: '2.0',
        id,
        error: {
          code: err.code,
          message: err.message,
          ...(err.data === undefined ? {} : { data: err.data }),
        },
      };
    return { jsonrpc: '2.0', id, error: { code: -32603, message: `Internal error: ${String(err)}` } };
  }
}

/** A server on 127.0.0.1 (any free port) answering `dispatch`'s methods. */
export async function listenJsonRpc(dispatch: Dispatch): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    void handleHttp(dispatch, req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
