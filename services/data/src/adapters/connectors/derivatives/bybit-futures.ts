import { bybitLinearBatches } from '../../parsers/derivatives/bybit-futures.js';
import { FUTURES_BASES } from './binance-futures.js';
import type { ConnectorDefinition } from '../connector.js';
import { UpstreamError } from '../upstream-http.js';
import { venueRefusal } from '../venue-refusals.js';

/** Bybit bans an IP that exceeds its limit with a 403 for about ten minutes. */
const IP_BAN_WAIT_MS = 10 * 60_000;

interface BybitEnvelope {
  retCode: number;
  retMsg: string;
  result: { list?: unknown };
  time: number;
}

/**
 * Bybit v5 `GET /v5/market/tickers?category=linear` (no key, every linear contract in one request):
 * funding rate (with its interval when the answer gives it), mark and index price of the USDT
 * perpetual of each live base, stored as BASE-USDT. Bybit answers its refusals under HTTP 200 as
 * `{"retCode":10006,"retMsg":"Too many visits!"}` (rate limit; 10018 for the IP's) or another
 * non-zero retCode (an error); an IP over the limit gets a 403 for ten minutes.
 */
export const bybitFutures: ConnectorDefinition = {
  name: 'bybit_futures',
  products: ['crypto/futures'],
  url: 'https://api.bybit.com',
  cadenceMs: 60_000,
  note: 'public market data, no key; USDT perpetuals only (BASE-USDT)',
  open: (url) => async (http) => {
    let body: BybitEnvelope;
    try {
      body = (await http.json(`${url}/v5/market/tickers?category=linear`)) as BybitEnvelope;
    } catch (err) {
      if (err instanceof UpstreamError && err.status === 403)
        throw new UpstreamError('rate_limited', `${err.message} (IP rate limit)`, 403, IP_BAN_WAIT_MS);
      throw err;
    }
    if (typeof body?.retCode !== 'number')
      throw new UpstreamError('malformed', 'tickers: not a Bybit v5 answer (no retCode)');
    if (body.retCode !== 0)
      throw venueRefusal('bybit', String(body.retCode), body.retMsg, { where: 'tickers' });
    const list = body.result?.list;
    if (!Array.isArray(list) || typeof body.time !== 'number')
      throw new UpstreamError('malformed', 'tickers: no result.list or time');
    return bybitLinearBatches(list, body.time, FUTURES_BASES);
  },
};
