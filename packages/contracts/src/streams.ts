/**
 * One JetStream stream per bounded context. Request/reply subjects live under `rpc.` so that no
 * stream captures them; dead letters live under `dlq.` in a stream of their own.
 * These names are frozen: a breaking change adds a new version beside the old one.
 */
export const STREAMS = {
  identity: { name: 'IDENTITY', subjects: ['identity.>'] },
  billing: { name: 'BILLING', subjects: ['billing.>'] },
  analysis: { name: 'ANALYSIS', subjects: ['analysis.>'] },
  data: { name: 'DATA', subjects: ['data.>'] },
  x402: { name: 'X402', subjects: ['x402.>'] },
  requests: { name: 'REQUESTS', subjects: ['requests.>'] },
  deadLetter: { name: 'DEADLETTER', subjects: ['dlq.>'] },
  /**
   * Analysis runs waiting for a worker: a work queue (each job removed once a worker acknowledges
   * it), not an event stream, so it lives under `work.` where the ANALYSIS events stream does not
   * capture it.
   */
  analysisRuns: { name: 'ANALYSIS_RUNS', subjects: ['work.analysis.>'], retention: 'workqueue' },
} as const;

export type StreamName = (typeof STREAMS)[keyof typeof STREAMS]['name'];

export const RPC_ROOT = 'rpc';
export const DEAD_LETTER_ROOT = 'dlq';
/** Root of job subjects (work queues), apart from the event streams' roots. */
export const WORK_ROOT = 'work';
/**
 * Root of notices: fanned out at once to every replica listening, stored by no stream (a change a
 * cache should hear of; one missed costs only the cache's own bound).
 */
export const NOTICE_ROOT = 'notice';

/** Subject a message goes to after it exhausted its deliveries on a durable consumer. */
export function deadLetterSubject(durable: string, subject: string): string {
  return `${DEAD_LETTER_ROOT}.${durable}.${subject}`;
}
