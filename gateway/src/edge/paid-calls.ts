import { Counter } from 'prom-client';
import { X402_HEADERS, type PaymentCallRequest, type Problem } from '@meridian/contracts';
import type { Metrics } from '@meridian/observability';
import type { X402Client } from '../adapters/x402.js';
import { headerValue, paymentRefusal } from '../domain/payment-required.js';
import type { DataCall } from './data-forward.js';
import type { AnswerSink } from './upstream.js';

/** What the data edge does for the paid path: its challenge, its proxy, its problem answers. */
export interface PaidCallSteps {
  /** The 402 challenge again, `error` naming the refusal, with the receipt of an unsettled payment. */
  challenge(call: DataCall, error: string, receipt?: string): Promise<void>;
  /** On to the data service with the x402 caller's assertion. */
  serve(call: DataCall): Promise<void>;
  /** The data service's answer as received, with the edge's fields. */
  write(call: DataCall, status: number, rawHeaders: string[], body: Buffer): void;
  refuse(call: DataCall, body: Problem): void;
  fail(call: DataCall, err: unknown): void;
  /** The data service gave no answer (or not all of it): 503 or 504. */
  upstreamFailed(call: DataCall, err: NodeJS.ErrnoException): void;
}

/**
 * The x402 path of data calls (data-api-interface 4.4): the payment is verified by the x402
 * service (decode, match our requirements, replay check, facilitator), the data service answers,
 * and only an answer below 400 is settled before it is sent, with PAYMENT-RESPONSE. An answer of
 * 400 or more is passed on as it is and nothing is charged; a payment that does not settle gets
 * the challenge again with its receipt (`success: false`) and no data.
 */
export class PaidCalls {
  private readonly challenges: Counter<'reason'>;
  private readonly calls: Counter<'outcome'>;

  constructor(
    private readonly payments: X402Client,
    metrics: Metrics,
    private readonly steps: PaidCallSteps,
  ) {
    this.challenges = new Counter({
      name: 'gateway_x402_challenges_total',
      help: 'x402 challenges answered (402), by reason: no_payment or why a payment was refused',
      labelNames: ['reason'],
      registers: [metrics.registry],
    });
    this.calls = new Counter({
      name: 'gateway_x402_paid_calls_total',
      help: 'Calls with a verified payment: settled, not_charged (data answer >= 400), unsettled, unavailable, abandoned',
      labelNames: ['outcome'],
      registers: [metrics.registry],
    });
  }

  challenged(reason: string): void {
    this.challenges.inc({ reason });
  }

  async verify(call: DataCall, request: PaymentCallRequest): Promise<void> {
    const reply = await this.payments.verify(request);
    if (!reply.ok) return this.refused(call, reply.problem);
    call.paid = { request };
    await this.steps.serve(call);
  }

  /** Where the data answer of a verified call goes: read whole, then settled (below 400) or passed on. */
  sink(call: DataCall): AnswerSink {
    let status = 502;
    let rawHeaders: string[] = [];
    const chunks: Buffer[] = [];
    return {
      head: (s, raw) => {
        status = s;
        rawHeaders = raw;
      },
      chunk: (data) => chunks.push(data) > 0,
      end: (last) => {
        // The client left before its answer was ready: nothing can be served, so nothing is settled.
        if (call.res.destroyed) return void this.calls.inc({ outcome: 'abandoned' });
        if (last) chunks.push(last);
        this.answered(call, status, rawHeaders, Buffer.concat(chunks));
      },
      failed: (err) => {
        if (call.res.destroyed) return void this.calls.inc({ outcome: 'abandoned' });
        this.steps.upstreamFailed(call, err);
      },
    };
  }

  private answered(call: DataCall, status: number, rawHeaders: string[], body: Buffer): void {
    if (status >= 400) {
      this.calls.inc({ outcome: 'not_charged' });
      return this.steps.write(call, status, rawHeaders, body);
    }
    this.settle(call, status, rawHeaders, body).catch((err: unknown) => this.steps.fail(call, err));
  }

  private async settle(call: DataCall, status: number, rawHeaders: string[], body: Buffer): Promise<void> {
    const reply = await this.payments.settle(call.paid!.request);
    if (!reply.ok) {
      this.calls.inc({ outcome: reply.problem.status === 402 ? 'unsettled' : 'unavailable' });
      return this.refused(call, reply.problem);
    }
    const { receipt } = reply.data;
    const encoded = headerValue(receipt);
    if (!receipt.success) {
      this.calls.inc({ outcome: 'unsettled' });
      const reason = receipt.errorReason ?? 'settlement_failed';
      return this.steps.challenge(
        call,
        paymentRefusal(reason, 'The payment did not settle, so the data was not served.'),
        encoded,
      );
    }
    this.calls.inc({ outcome: 'settled' });
    call.fields.push(X402_HEADERS.paymentResponse, encoded, 'cache-control', 'no-store');
    this.steps.write(call, status, rawHeaders, body);
  }

  /** A payment refused (402: the challenge again, naming the reason) or not checkable (503). */
  private async refused(call: DataCall, problem: Problem): Promise<void> {
    if (problem.status === 402)
      return this.steps.challenge(call, paymentRefusal(problem.error_category, problem.detail));
    this.steps.refuse(call, problem);
  }
}
