import type { IngestBatchInput } from '@meridian/contracts';
import { okxFundingBatch, okxMarkBatches, okxSwapOf } from '../../parsers/derivatives/okx-futures.js';
import { FUTURES_BASES } from './binance-futures.js';
import type { ConnectorDefinition } from '../connector.js';
import { paced } from '../paced.js';
import { UpstreamError, type UpstreamHttp } from '../upstream-http.js';
import { rateLimitCode } from '../venue-refusals.js';

/** OKX's code for an instrument it does not list. */
const NO_SUCH_INSTRUMENT = '51001';

export interface OkxSettings {
  /** Least time between two funding-rate requests: OKX allows 10 every 2 s. */
  spacingMs: number;
}

/** OKX's refusal of one request, with its code. */
class OkxRefusal extends UpstreamError {
  constructor(
    readonly code: string,
    message: string,
    status?: number,
  ) {
    super(rateLimitCode('okx', code) ? 'rate_limited' : 'http_error', message, status);
  }
}

type OkxBody = { code?: unknown; msg?: unknown; data?: unknown } | null;

/**
 * `{"code":"0","msg":"","data":[...]}`: the data. Another code is OKX's refusal (an OkxRefusal) under
 * whatever HTTP status it came (200, 400 or 429).
 */
async function okxData(http: UpstreamHttp, url: string): Promise<unknown[]> {
  const path = new URL(url).pathname;
  let body: OkxBody;
  let status: number | undefined;
  try {
    body = (await http.json(url)) as OkxBody;
  } catch (err) {
    if (!(err instanceof UpstreamError) || err.body === undefined) throw err;
    body = okxBodyOf(err.body);
    if (typeof body?.code !== 'string') throw err;
    status = err.status;
  }
  if (typeof body?.code !== 'string') throw new UpstreamError('malformed', `${path}: not an OKX v5 answer`);
  if (body.code !== '0')
    throw new OkxRefusal(body.code, `${path}: OKX code ${body.code} ${String(body.msg)}`, status);
  if (!Array.isArray(body.data)) throw new UpstreamError('malformed', `${path}: data is not a list`);
  return body.data;
}

function okxBodyOf(text: string): OkxBody {
  try {
    return JSON.parse(text) as OkxBody;
  } catch {
    return null;
  }
}

/**
 * OKX v5 (no key): `GET /api/v5/public/mark-price?instType=SWAP` (every perpetual's mark, one request)
 * and `GET /api/v5/public/funding-rate?instId=BASE-USDT-SWAP`, one request per base (19), at most one
 * each 250 ms (OKX allows 10 per 2 s). Stored as BASE-USDT. OKX answers `{"code":"50011","msg":"Too Many
 * Requests"}` (rate limit, also under 429); a base OKX does not list (51001) is skipped.
 */
export function okxFuturesConnector(settings: OkxSettings = { spacingMs: 250 }): ConnectorDefinition {
  return {
    name: 'okx_futures',
    products: ['crypto/futures'],
    url: 'https://www.okx.com',
    cadenceMs: 60_000,
    note: 'public market data, no key; USDT perpetuals only (BASE-USDT); funding one request per base, 4/s',
    open: (url) => async (http, now) => {
      const api = `${url}/api/v5/public`;
      const batches: IngestBatchInput[] = okxMarkBatches(
        await okxData(http, `${api}/mark-price?instType=SWAP`),
        FUTURES_BASES,
      );
      await paced(FUTURES_BASES, { concurrency: 1, spacingMs: settings.spacingMs }, async (base) => {
        let data: unknown[];
        try {
          data = await okxData(http, `${api}/funding-rate?instId=${okxSwapOf(base)}`);
        } catch (err) {
          if (err instanceof OkxRefusal && err.code === NO_SUCH_INSTRUMENT) return;
          throw err;
        }
        const batch = data[0] === undefined ? undefined : okxFundingBatch(data[0], now);
        if (batch) batches.push(batch);
      });
      return batches;
    },
  };
}

export const okxFutures = okxFuturesConnector();
