import type { System } from './system.js';

/**
 * Clients of a gateway that trusts loopback (TRUST_PROXY): each is named by X-Forwarded-For, which
 * the gateway forwards to identity, whose limits count by client address.
 */

/** Client addresses of their own (TEST-NET-3), a new one at each call. */
export function clientAddresses(): () => string {
  let clients = 0;
  return () => {
    clients += 1;
    return `203.0.113.${clients}`;
  };
}

/** A JSON POST through the gateway from `client`, with a session if given. */
export function postFromClient(
  system: System,
  client: string,
  path: string,
  body: unknown,
  session?: string,
): Promise<Response> {
  return fetch(`${system.gatewayUrl}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-forwarded-for': client,
      ...(session ? { authorization: `Bearer ${session}` } : {}),
    },
    body: JSON.stringify(body),
  });
}
