import pg from 'pg';

export interface Listening {
  close(): Promise<void>;
}

export interface ListenOptions {
  /** Runs once LISTEN is in place again after a lost connection: what was notified meanwhile is gone. */
  onGap?: () => void;
  onError?: (err: unknown) => void;
  /** Pause before reconnecting; default 1000 ms. */
  retryMs?: number;
}

/**
 * LISTEN on a channel of a Postgres server, on a connection of its own (a pooled one would be
 * handed to other queries and lose the LISTEN), reconnecting after a loss. Resolves once the first
 * LISTEN is in place, or after the first failure (it keeps retrying).
 */
export async function listenTo(
  url: string,
  channel: string,
  onNotify: (payload: string) => void,
  options: ListenOptions = {},
): Promise<Listening> {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`not a plain channel name: ${channel}`);
  const retryMs = options.retryMs ?? 1000;
  let closed = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let connectedBefore = false;
  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: url });
    client = next;
    let lost = false;
    const reconnect = (err?: unknown) => {
      if (lost) return;
      lost = true;
      if (err) options.onError?.(err);
      void next.end().catch(() => undefined);
      if (!closed) retry = setTimeout(() => void connect(), retryMs);
    };
    next.on('error', reconnect);
    next.on('end', () => reconnect());
    next.on('notification', (msg) => {
      if (msg.channel === channel) onNotify(msg.payload ?? '');
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${channel}`);
      if (connectedBefore) options.onGap?.();
      connectedBefore = true;
    } catch (err) {
      reconnect(err);
    }
  };
  await connect();
  return {
    close: async () => {
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}
