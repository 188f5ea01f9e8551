import request from 'supertest';
import { STREAMS, type CloudEvent } from '@meridian/contracts';
import type { Requests } from '../harness.js';

/** Every event the service publishes on its stream, in order, as a consumer of it sees them. */
export async function recordEvents(h: Requests): Promise<{ events: CloudEvent[]; close(): Promise<void> }> {
  const events: CloudEvent[] = [];
  const consumer = await h.client.consume({
    stream: STREAMS.requests.name,
    durable: 'requests_test__all',
    filterSubject: 'requests.>',
    handler: async (event: CloudEvent<never>) => {
      events.push(event);
    },
  });
  return { events, close: () => consumer.close() };
}

/** The calls the tests make as an account; `requests` answers the service the test file started. */
export function requestCalls(requests: () => Requests) {
  const ask = async (accountId: string, body: unknown) =>
    request(requests().app)
      .post('/v1/requests')
      .set(await requests().as(accountId))
      .send(body as object);
  /** The start of an hour `hours` from now, a slot under the test's hours. */
  const slotIn = (hours: number) => {
    const t = new Date(Date.now() + hours * 3_600_000);
    t.setUTCMinutes(0, 0, 0);
    return t.toISOString();
  };
  const book = async (accountId: string, body: object) =>
    request(requests().app)
      .post('/v1/consulting/bookings')
      .set(await requests().as(accountId))
      .send(body);
  return { ask, slotIn, book };
}
