import type { Refusal } from '@meridian/contracts';

/**
 * Every refusal the data service answers a client (data-api-interface 3 and 7).
 * routes/answer.ts gives each its problem.
 */
export type DataRefusal =
  /** No metric of that category/product/metric in the catalogue: a routing 404. */
  | 'unknown_metric'
  /** A planned metric, or one this build has no resolver for: the path is right, the data is not there. */
  | 'not_yet_available'
  /** Neither an API key nor a payment (the gateway sells live metrics to one or the other). */
  | 'unauthorized'
  /** A key whose plan is below the metric's gate; the detail names both. */
  | 'tier_forbidden'
  /** A query the metric cannot answer, or a batch ingestion refuses; `errors` names the input. */
  | 'validation_failed'
  /** A cursor altered, issued by another service, or for another query. */
  | 'invalid_cursor'
  /** Nothing stored yet for what was asked. */
  | 'not_found'
  /** Nothing stored yet because the replay's first load after a start is still running. */
  | 'first_load_running';

/** A refusal of data: the inputs at fault named, as the `errors` of a 400 problem do. */
export type DataRefused = Refusal<DataRefusal> & { errors?: InputFault[] };

/** One input at fault: its path (`query.entity`) and what is wrong with it. */
export interface InputFault {
  path: string;
  message: string;
}

/** The refusals a resolver returns: the rest belong to the flow that calls it. */
const RESOLVER_REFUSALS = ['validation_failed', 'not_found'] as const;
export type ResolverRefusal = (typeof RESOLVER_REFUSALS)[number];

/** Whether a resolver's refusal code is one of its own (any other is a resolver's bug). */
export const isResolverRefusal = (code: string): code is ResolverRefusal =>
  (RESOLVER_REFUSALS as readonly string[]).includes(code);

/** A refusal of one input (`query.entity`): the detail and `errors` name it. */
export function inputRefusal({ path, message }: InputFault): DataRefused {
  return { ok: false, code: 'validation_failed', detail: `${path}: ${message}`, errors: [{ path, message }] };
}
