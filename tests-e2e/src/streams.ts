import { connect, type NatsConnection } from 'nats';

/** What a JetStream stream of the system holds, read back message by message. */
export interface StreamContents {
  /** The event id (CloudEvent `id`, also the message id the relay dedupes by) of each message, in order. */
  ids: string[];
  /** Event type of each id. */
  types: Map<string, string>;
}

export interface DurableState {
  /** Messages of its filter not yet delivered. */
  pending: number;
  /** Delivered and not yet acknowledged. */
  ackPending: number;
}

/**
 * A reader of the system's streams on its NATS (`namespace`: its BUS_NAMESPACE), for checks made
 * after the run: it reads each message by sequence, so it takes nothing from any consumer.
 */
export async function streamReader(url: string, namespace: string) {
  const nc: NatsConnection = await connect({ servers: url, name: 'faults-test-reader' });
  const jsm = await nc.jetstreamManager();
  const streamName = (name: string) => `${namespace.toUpperCase()}_${name}`;
  const decoder = new TextDecoder();
  return {
    async contents(name: string): Promise<StreamContents> {
      const ids: string[] = [];
      const types = new Map<string, string>();
      const info = await jsm.streams.info(streamName(name)).catch(() => undefined);
      if (!info || info.state.messages === 0) return { ids, types };
      for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
        const msg = await jsm.streams.getMessage(streamName(name), { seq });
        const event = JSON.parse(decoder.decode(msg.data)) as { id: string; type: string };
        ids.push(event.id);
        types.set(event.id, event.type);
      }
      return { ids, types };
    },
    async durable(stream: string, durable: string): Promise<DurableState> {
      const info = await jsm.consumers.info(streamName(stream), durable);
      return { pending: info.num_pending, ackPending: info.num_ack_pending };
    },
    async messages(stream: string): Promise<number> {
      const info = await jsm.streams.info(streamName(stream)).catch(() => undefined);
      return info?.state.messages ?? 0;
    },
    close: () => nc.close(),
  };
}
