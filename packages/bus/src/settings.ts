import { DEFAULTS, type ConsumerSpec } from './types.js';

export type ConsumerSettings<T = unknown> = Required<ConsumerSpec<T>>;

export function consumerSettings<T>(spec: ConsumerSpec<T>): ConsumerSettings<T> {
  const settings = {
    ...spec,
    maxDeliver: spec.maxDeliver ?? DEFAULTS.maxDeliver,
    backoffMs: spec.backoffMs ?? [...DEFAULTS.backoffMs],
    ackWaitMs: spec.ackWaitMs ?? DEFAULTS.ackWaitMs,
    maxMessages: spec.maxMessages ?? DEFAULTS.maxMessages,
  };
  if (!Number.isInteger(settings.maxDeliver) || settings.maxDeliver < 1) {
    throw new Error(`maxDeliver of ${spec.durable} must be a positive integer`);
  }
  if (!/^[\w-]+$/.test(spec.durable)) throw new Error(`Invalid durable name "${spec.durable}"`);
  return settings;
}
