import { randomUUID } from 'node:crypto';
import { newEvent, type Bus, type Closable } from '@meridian/bus';
import {
  dataAnswersChangedSchema,
  NOTICES,
  type Catalog,
  type DataAnswersChanged,
} from '@meridian/contracts';
import type { Logger } from '@meridian/observability';
import { INGEST_KINDS, productsReading } from '../domain/answer-invalidation.js';
import type { AnswerCache } from './answer-cache.js';
import type { Ingestor } from './ingestor.js';

/**
 * The answers' invalidation across replicas: each change this replica stores is told at once to
 * every other (NOTICES.dataAnswersChanged, stored nowhere), which computes the answers reading it
 * again; the gateways stop serving what they kept of those products. A notice missed (a replica
 * starting, NATS away) costs only the caches' own bound, DATA_ANSWER_CACHE_MS: correctness never
 * depends on it.
 */
export async function startAnswerNotices(
  parts: { bus: Bus; ingestor: Ingestor; answers: AnswerCache; catalog: Catalog; logger: Logger },
  source: string,
): Promise<Closable> {
  const { bus, ingestor, answers, catalog, logger } = parts;
  const replica = randomUUID();
  // The catalogue does not change while the process runs: which products read a kind, once.
  const reading = new Map(INGEST_KINDS.map((k) => [k, productsReading(catalog.products, k)]));
  ingestor.onChange((batch) => {
    const data: DataAnswersChanged = { replica, kinds: [batch.kind], products: reading.get(batch.kind)! };
    bus
      .notify(newEvent(source, NOTICES.dataAnswersChanged, data))
      .catch((err: unknown) => logger.warn({ err }, 'the other replicas were not told of a change'));
  });
  return bus.subscribe(NOTICES.dataAnswersChanged, (event) => {
    const notice = dataAnswersChangedSchema.safeParse(event.data);
    if (notice.success && notice.data.replica !== replica) answers.changed(notice.data.kinds);
  });
}
