/**
 * Every refusal a flow of requests returns (portal 4.6: consulting and service requests).
 * routes/answer.ts gives each its problem.
 */
export type RequestsRefusal =
  /** An unknown kind or a malformed body (portal 7: 400 on POST /v1/requests), or a slot not bookable. */
  | 'validation_failed'
  /** The slot was just booked, or an Idempotency-Key named another booking. */
  | 'conflict'
  | 'not_found'
  /** Unpaid holds reached the account's or the day's cap. */
  | 'hold_limit'
  /** Open requests naming a domain reached the account's cap. */
  | 'request_limit';
