/** The routes the mixed bench drives, and its streams of requests over them. */
import type autocannon from 'autocannon';
import { INTERNAL_ASSERTION_HEADER } from '@meridian/contracts';
import { DOMAIN } from './account.js';
import type { Stream } from './processes.js';

export const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
export const X402_RATE = Number(process.env.MIXED_X402_RATE ?? 10);
/** Connections per route. All of them come from one address: the gateway's default in-flight
 *  limit per client address (MAX_IN_FLIGHT_PER_CLIENT, 64) is above their sum (5×6 + 4×3 + 4 = 46). */
export const DATA_CONNECTIONS = 6;
const PORTAL_CONNECTIONS = 3;
const X402_CONNECTIONS = 4;
/** Metric routes of the replay catalogue, across products and plan gates (ultra reads every one). */
export const DATA_ROUTES = [
  '/v1/data/crypto/spot/reference_price?entity=BTC-USD',
  '/v1/data/crypto/spot/ohlcv?entity=BTC-USD&interval=1m',
  '/v1/data/crypto/futures/funding?entity=BTC-USD',
  '/v1/data/fx/spot/reference_rate?entity=EUR-USD',
  '/v1/data/weather/observations/temperature?entity=london',
];
export const PAID_ROUTE = '/v1/data/crypto/spot/reference_price?entity=BTC-USD';
/** Session reads of the portal through the gateway, and the web page the portal process serves. */
export const PORTAL_ROUTES = [
  '/v1/account',
  '/v1/account/billing/history',
  `/v1/analysis/reports?domain=${DOMAIN}`,
  '/',
];
/** The data reads by API key through the gateway (`routes`, the mix's by default). */
export const dataStreams = (
  base: string,
  headersOf: (i: number) => Record<string, string>,
  routes = DATA_ROUTES,
  connections = DATA_CONNECTIONS,
): Stream[] =>
  routes.map((route, i) => ({
    group: 'data',
    route: route.slice('/v1/data/'.length),
    connections,
    options: { url: `${base}${route}`, headers: headersOf(i) },
  }));

/** Paid reads at X402_RATE, each with a payment of the pool; `spent` counts those sent. */
export function x402Stream(gatewayUrl: string, pool: string[], spent: { count: number }): Stream {
  return {
    group: 'x402',
    route: `paid ${PAID_ROUTE.slice('/v1/data/'.length)}`,
    connections: X402_CONNECTIONS,
    options: {
      url: `${gatewayUrl}${PAID_ROUTE}`,
      overallRate: X402_RATE,
      requests: [
        {
          method: 'GET',
          setupRequest: (req) => {
            spent.count++;
            // An empty pool sends a used payment again: its 402 shows as non-2xx.
            const payment = pool.pop() ?? pool[0] ?? 'exhausted';
            return { ...req, headers: { ...req.headers, 'payment-signature': payment } };
          },
        },
      ],
    },
  };
}

/** The data reads straight to the data service (`routes`, the mix's by default), each with a fresh caller assertion. */
export function directStreams(
  dataUrl: string,
  assertion: () => string,
  routes = DATA_ROUTES,
  connections = DATA_CONNECTIONS,
): Stream[] {
  return routes.map((route) => ({
    group: 'data',
    route: route.slice('/v1/data/'.length),
    connections,
    options: {
      url: `${dataUrl}${route}`,
      requests: [
        {
          method: 'GET',
          setupRequest: (req: autocannon.Request) => ({
            ...req,
            headers: { ...req.headers, [INTERNAL_ASSERTION_HEADER]: assertion() },
          }),
        },
      ],
    },
  }));
}

/** The portal's reads with the account's session, through the gateway. */
export const portalStreams = (gatewayUrl: string, session: Record<string, string>): Stream[] =>
  PORTAL_ROUTES.map((route) => ({
    group: 'portal',
    route: route === '/' ? '/ (the web page)' : route,
    connections: PORTAL_CONNECTIONS,
    options: { url: `${gatewayUrl}${route}`, headers: session },
  }));
