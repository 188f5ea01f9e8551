/**
 * What the replicas test measures its system with: requests bounded in time (a hang is an answer
 * of its own), and what each replica's own /metrics says it served.
 */

/** No request may take longer than this (a hang). */
const REQUEST_LIMIT_MS = 15_000;

export interface Answer {
  status: number;
  retryAfter: string | null;
  ms: number;
  error?: string;
}

/** A request with a bound: a hang is an answer of its own (status 0) rather than a stuck test. */
export async function timed(url: string, init: RequestInit = {}): Promise<{ answer: Answer; body: unknown }> {
  const started = Date.now();
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_LIMIT_MS) });
    const body = (await res.json()) as unknown;
    return {
      answer: { status: res.status, retryAfter: res.headers.get('retry-after'), ms: Date.now() - started },
      body,
    };
  } catch (err) {
    return {
      answer: { status: 0, retryAfter: null, ms: Date.now() - started, error: String(err) },
      body: null,
    };
  }
}

/** Sums the samples of one metric whose labels match every `labels` pattern, from a Prometheus text page. */
function sampleSum(page: string, metric: string, labels: RegExp[]): number {
  let sum = 0;
  for (const line of page.split('\n')) {
    if (!line.startsWith(`${metric}{`)) continue;
    const labelText = line.slice(metric.length, line.lastIndexOf('}') + 1);
    if (labels.every((l) => l.test(labelText))) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/** What one replica's /metrics says it served. */
export async function served(url: string) {
  const page = await (await fetch(`${url}/metrics`)).text();
  const count = 'http_request_duration_seconds_count';
  return {
    dataReads: sampleSum(page, count, [/method="GET"/, /route="\/v1\/data\//, /status="200"/]),
    runsCommissioned: sampleSum(page, count, [
      /method="POST"/,
      /route="\/v1\/analysis\/run"/,
      /status="20[01]"/,
    ]),
    jobsDone: sampleSum(page, 'bus_messages_total', [
      /direction="consume"/,
      /subject="[^"]*analysis\.run\.requested[^"]*"/,
      /outcome="ok"/,
    ]),
  };
}

/** The columns the test reads of analysis's and billing's schemas. */
export interface AnalysisTables {
  runs: { id: string; account_id: string; status: string; attempts: number; worker: string | null };
}
export interface BillingTables {
  ledger_entries: { account_id: string; order_id: string | null; delta_atomic: number };
}
