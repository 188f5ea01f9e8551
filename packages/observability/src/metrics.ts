import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  busMessages: Counter<'direction' | 'subject' | 'outcome'>;
  busDeadLetters: Counter<'durable'>;
}

/** One registry per process part, with default metrics, HTTP and bus instruments. */
export function createMetrics(service: string, options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration by route and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    busMessages: new Counter({
      name: 'bus_messages_total',
      help: 'Bus messages by direction (publish, consume, request, serve) and outcome',
      labelNames: ['direction', 'subject', 'outcome'],
      registers: [registry],
    }),
    busDeadLetters: new Counter({
      name: 'bus_dead_letters_total',
      help: 'Messages moved to the dead-letter subject after max deliveries',
      labelNames: ['durable'],
      registers: [registry],
    }),
  };
}
