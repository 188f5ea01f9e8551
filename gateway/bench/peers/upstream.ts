/** The tiny upstream of gateway/bench/proxy.ts: a 300-byte JSON answer on keep-alive connections. */
import { createServer } from 'node:http';

const body = JSON.stringify({
  data: { symbol: 'BTC-USD', price: '64000.00', venues: [{ venue: 'kraken', price: '64000.1' }] },
  meta: {
    as_of: '2026-01-01T00:00:00.000Z',
    venues: ['kraken', 'binance'],
    staleness_ms: 120,
    confidence: 0.9,
  },
  provenance: { sources: [{ venue: 'kraken', ts: '2026-01-01T00:00:00.000Z' }], method: 'trim' },
});
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT), '127.0.0.1', () => console.log(`ready ${Buffer.byteLength(body)}`));
