import { X402_HEADERS, type PaymentCallRequest, type Problem } from '@meridian/contracts';
import type { X402Client } from '../adapters/x402.js';
import { challengedUrl, isPriced, isSeriesRead, type DataTarget } from '../domain/data-route.js';
import {
  NO_PAYMENT,
  paymentHeaderOf,
  paymentRequired,
  type X402Settings,
} from '../domain/payment-required.js';
import { refuse } from './call.js';
import type { DataCall } from './data-forward.js';
import type { PaidCalls } from './paid-calls.js';
import { checkDataQuery } from './query-check.js';

type PricedTarget = DataTarget & { hit: NonNullable<DataTarget['hit']> };
type Terms = X402Settings & { feePayer: string };

export interface X402CallOptions {
  x402: X402Settings;
  /** The x402 service: the challenge's fee payer, verification and settlement of paid calls. */
  payments: X402Client;
  /** Base of the resource URL in the x402 challenge; unset: the Host of the request. */
  publicBaseUrl?: string;
  /** The Host of a request that sent none (HTTP/1.0): the first data replica's. */
  fallbackHost: string;
}

/**
 * Data calls without a credential (data-api-interface 4.4): on a priced route the x402 challenge,
 * or the payment sent verified and the call served as paid (paid-calls.ts); elsewhere the data
 * service answers anonymously.
 */
export class X402Calls {
  constructor(
    private readonly options: X402CallOptions,
    private readonly paidCalls: PaidCalls,
    private readonly forwardAnonymous: (call: DataCall) => Promise<void>,
  ) {}

  async serve(call: DataCall): Promise<void> {
    const target = call.target;
    if (!isPriced(target)) return this.forwardAnonymous(call);
    // A query the data service would refuse is refused before any payment is asked for or taken.
    const refused = checkDataQuery(target.hit, new URLSearchParams(call.query));
    if (refused) return refuse(call, refused);
    const payment = paymentHeaderOf(call.req.headers);
    if (payment === undefined) return this.challenge(call);
    const terms = await this.terms(call);
    if (terms) await this.paidCalls.verify(call, this.paymentRequest(call, target, terms, payment));
  }

  /**
   * The 402 of data-api-interface 4.4, in the PAYMENT-REQUIRED field and as the body, never
   * cached; with `error` naming why a payment sent was refused, and the settlement receipt of one
   * that did not settle.
   */
  async challenge(call: DataCall, error = NO_PAYMENT, receipt?: string): Promise<void> {
    const terms = await this.terms(call);
    if (!terms) return;
    const target = call.target as PricedTarget;
    const { url, series } = this.resourceOf(call);
    const json = JSON.stringify(paymentRequired(target.hit, url, series, terms, error));
    this.paidCalls.challenged(error === NO_PAYMENT ? 'no_payment' : error.slice(0, error.indexOf(':')));
    call.fields.push(
      'content-type',
      'application/json',
      'cache-control',
      'no-store',
      X402_HEADERS.paymentRequired,
      Buffer.from(json).toString('base64'),
    );
    if (receipt !== undefined) call.fields.push(X402_HEADERS.paymentResponse, receipt);
    call.res.writeHead(402, call.fields);
    call.res.end(json);
  }

  /** The challenge's terms: our settings and the facilitator's fee payer (503 when it cannot be known). */
  private async terms(call: DataCall): Promise<Terms | undefined> {
    const feePayer: string | Problem = await this.options.payments.feePayer();
    if (typeof feePayer === 'string') return { ...this.options.x402, feePayer };
    refuse(call, feePayer);
    return undefined;
  }

  /**
   * The resource URL a payment buys (the public base, the path and the data endpoint's own
   * parameters only) and the series flag of its price.
   */
  private resourceOf(call: DataCall): { url: string; series: boolean } {
    const base = this.options.publicBaseUrl ?? `http://${call.req.headers.host ?? this.options.fallbackHost}`;
    const query = new URLSearchParams(call.query);
    return {
      url: challengedUrl(base, call.path, query),
      series: isSeriesRead(call.target as PricedTarget, query),
    };
  }

  private paymentRequest(
    call: DataCall,
    target: PricedTarget,
    terms: Terms,
    header: string,
  ): PaymentCallRequest {
    const { url, series } = this.resourceOf(call);
    const required = paymentRequired(target.hit, url, series, terms);
    return { header, resource: required.resource.url, requirements: required.accepts[0]! };
  }
}
