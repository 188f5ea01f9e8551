import { z } from 'zod';

/** CloudEvents 1.0 structured JSON; `data` is validated by the schema of each event type. */
export const cloudEventSchema = z.object({
  specversion: z.literal('1.0'),
  id: z.string().min(1),
  source: z.string().min(1),
  type: z.string().min(1),
  time: z.string().datetime({ offset: true }),
  datacontenttype: z.literal('application/json'),
  data: z.unknown(),
  traceparent: z.string().optional(),
});

export type CloudEvent<T = unknown> = Omit<z.infer<typeof cloudEventSchema>, 'data'> & { data: T };
