/**
 * The caller's API key on an MCP HTTP request, as the data API takes it (data-api-interface 5):
 * `X-API-Key: <key>` or `Authorization: Bearer <key>`. Undefined when neither carries one.
 */
export function callerKey(headers: Record<string, string | string[] | undefined>): string | undefined {
  const single = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v)?.trim();
  const header = single(headers['x-api-key']);
  if (header) return header;
  const match = /^Bearer\s+(\S+)$/i.exec(single(headers.authorization) ?? '');
  return match?.[1];
}
