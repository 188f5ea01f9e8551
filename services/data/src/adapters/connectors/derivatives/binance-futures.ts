import { LIVE_FUTURES_MARKETS } from '@meridian/contracts';
import { binancePerpetualBatches } from '../../parsers/derivatives/binance-futures.js';
import type { ConnectorDefinition } from '../connector.js';
import { UpstreamError } from '../upstream-http.js';

/** The bases of the live perpetuals (BTC of BTC-USD). */
export const FUTURES_BASES = LIVE_FUTURES_MARKETS.map((m) => m.split('-')[0]!);

/**
 * Binance USD-M futures `GET /fapi/v1/premiumIndex` (no key, no symbol: every contract in one request
 * of weight 10 out of 2 400 a minute): mark, index and last funding rate of the USDT perpetual of each
 * live base, stored as BASE-USDT (converted to USD by the spot side's measured USDT rate when read).
 * Binance's refusal `{"code":-1121,"msg":"..."}` comes with a 4xx status (http_error); 429 and the
 * 418 ban are rate limits (upstream-http.ts).
 */
export const binanceFutures: ConnectorDefinition = {
  name: 'binance_futures',
  products: ['crypto/futures'],
  url: 'https://fapi.binance.com',
  cadenceMs: 60_000,
  note: 'public market data, no key; USDT perpetuals only (BASE-USDT)',
  open: (url) => async (http) => {
    const body = await http.json(`${url}/fapi/v1/premiumIndex`);
    if (!Array.isArray(body)) {
      const { code, msg } = (body ?? {}) as { code?: unknown; msg?: unknown };
      if (typeof code === 'number')
        throw new UpstreamError('http_error', `premiumIndex: Binance error ${code} ${String(msg)}`);
      throw new UpstreamError('malformed', 'premiumIndex: not a list');
    }
    return binancePerpetualBatches(body, FUTURES_BASES);
  },
};
