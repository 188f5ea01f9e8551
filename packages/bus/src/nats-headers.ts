import { headers as natsHeaders, type MsgHdrs } from 'nats';

export function toNatsHeaders(record: Record<string, string>): MsgHdrs {
  const h = natsHeaders();
  for (const [k, v] of Object.entries(record)) h.set(k, v);
  return h;
}

/** Header names in lower case, like HTTP in node, so handlers read them one way. */
export function fromNatsHeaders(h: MsgHdrs | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!h) return out;
  for (const [k, values] of h) {
    const value = values[0];
    if (value !== undefined) out[k.toLowerCase()] = value;
  }
  return out;
}
