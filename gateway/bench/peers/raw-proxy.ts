/** (b) of gateway/bench/proxy.ts: the least a node:http proxy can do, with a keep-alive agent. */
import { Agent, createServer, request } from 'node:http';

const target = new URL(process.env.TARGET!);
const agent = new Agent({ keepAlive: true, maxSockets: 512 });
const server = createServer((req, res) => {
  const out = request({
    host: target.hostname,
    port: target.port,
    path: req.url,
    method: req.method,
    headers: req.headers,
    agent,
  });
  out.on('response', (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  out.on('error', () => res.destroy());
  req.pipe(out);
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('ready'));
