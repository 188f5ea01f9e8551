/**
 * Every NATS subject and durable consumer name of the system. Services import these; a subject
 * is never written as a string literal inside a service. Frozen: a breaking change adds `.v2`.
 */
export const RPC = {
  /** Gateway → identity: who owns this API key (on a cache miss). */
  identityKeyVerify: 'rpc.identity.key.verify.v1',
  /** Gateway → identity: who holds this session token. */
  identitySessionVerify: 'rpc.identity.session.verify.v1',
  /** Analysis → identity: the confirmed email of an account (a share link's named audience). */
  identityAccountEmail: 'rpc.identity.account.email.v1',
  /** Operators' commands → identity: the operator an email names, refused when it holds no operator role. */
  identityOperatorResolve: 'rpc.identity.operator.resolve.v1',
  /** Connectors, replay, importer → data: store one batch (ingestBatchSchema), idempotent. */
  dataIngest: 'rpc.data.ingest.v1',
  /** Analysis, requests → billing: pay an order from credit (idempotent by order id). */
  billingCreditSpend: 'rpc.billing.credit.spend.v1',
  /** Analysis, requests → billing: refund what an order spent, never more. */
  billingCreditRefund: 'rpc.billing.credit.refund.v1',
  billingBalanceRead: 'rpc.billing.balance.read.v1',
  /** Analysis, requests → billing: an order that may be paid by an on-chain deposit; answers its memo. */
  billingOrderRegister: 'rpc.billing.order.register.v1',
  billingSubscriptionRead: 'rpc.billing.subscription.read.v1',
  /** Gateway → x402: the facilitator's fee payer for a network (its /supported), for the challenge. */
  x402SupportedRead: 'rpc.x402.supported.read.v1',
  /** Gateway → x402: decode, match, replay check and facilitator verification of a payment header. */
  x402PaymentVerify: 'rpc.x402.payment.verify.v1',
  /** Gateway → x402: claim the payment once (replay record), settle it, store and announce it. */
  x402PaymentSettle: 'rpc.x402.payment.settle.v1',
  /** Operators' console → x402: the payments reconciliation could not close, for a person to settle. */
  x402PaymentsUnreconciledList: 'rpc.x402.payments.unreconciled.list.v1',
  /** Analysis → billing: the prices of items from its price table (the one source of prices). */
  billingPriceRead: 'rpc.billing.price.read.v1',
} as const;

/** Jobs on work queues (stream ANALYSIS_RUNS): one worker takes each. */
export const WORK = {
  /** A paid (or covered) analysis run waiting for a worker; the CloudEvent type is `analysis.run.requested.v1`. */
  analysisRunRequested: 'work.analysis.run.requested.v1',
} as const;

/** Notices (Bus.notify): fan-out now, stored nowhere. */
export const NOTICES = {
  /** A data replica stored rows that change answers: `dataAnswersChangedSchema` of the data contracts. */
  dataAnswersChanged: 'notice.data.answers_changed.v1',
} as const;

export const EVENTS = {
  identityAccountCreated: 'identity.account.created.v1',
  identityAccountPlanChanged: 'identity.account.plan_changed.v1',
  identityKeyCreated: 'identity.key.created.v1',
  identityKeyRevoked: 'identity.key.revoked.v1',
  identitySessionRevoked: 'identity.session.revoked.v1',
  billingPlanChanged: 'billing.plan.changed.v1',
  billingOrderPaid: 'billing.order.paid.v1',
  x402PaymentSettled: 'x402.payment.settled.v1',
  requestsRequestRecorded: 'requests.request.recorded.v1',
  requestsBookingConfirmed: 'requests.booking.confirmed.v1',
  analysisRunRequested: 'analysis.run.requested.v1',
  analysisReviewRecorded: 'analysis.review.recorded.v1',
} as const;

/** Durable consumer names: `<consumer-service>__<handler>`. */
export const DURABLES = {
  identityPlanChanged: 'identity__plan_changed',
  identityBookingConfirmed: 'identity__booking_confirmed',
  identityReviewRecorded: 'identity__review_recorded',
  requestsOrderPaid: 'requests__order_paid',
  analysisOrderPaid: 'analysis__order_paid',
  analysisRunWorker: 'analysis__run_worker',
  billingAccountCreated: 'billing__account_created',
} as const;
