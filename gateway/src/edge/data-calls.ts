import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import type { Caller, Catalog } from '@meridian/contracts';
import { methodNotAllowed, problem, requestTrace } from '@meridian/http-kit';
import type { Logger, Metrics } from '@meridian/observability';
import type { X402Client } from '../adapters/x402.js';
import { dataTargets, isDataPath } from '../domain/data-route.js';
import type { X402Settings } from '../domain/payment-required.js';
import type { Replicas } from '../domain/replicas.js';
import { ANONYMOUS, type AssertionSigner } from './assertion.js';
import { closesUnread, CLOSE_FIELDS, type BodyLimits } from './bodies.js';
import { addFields, answerPreflight, refuse, type EdgeCall, type EdgeFront } from './call.js';
import { DataAdmission, type AdmissionOptions } from './data-admission.js';
import { answerFields, DataForwarder, endWith, type DataCall } from './data-forward.js';
import type { KeptAnswersLimits } from '../domain/kept-answers.js';
import { callOf } from './front.js';
import { KeptData } from './kept-data.js';
import { PaidCalls } from './paid-calls.js';
import { X402Calls } from './x402-calls.js';

export interface DataEdgeOptions extends AdmissionOptions {
  /** The catalogue of the data service's mode: what the pre-challenge checks accept. */
  catalog: Catalog;
  /** The data service's replicas (DATA_URL), taken in turn. */
  replicas: Replicas;
  timeoutMs: number;
  signer: AssertionSigner;
  x402: X402Settings;
  /** The x402 service: the challenge's fee payer, verification and settlement of paid calls. */
  payments: X402Client;
  /** Base of the resource URL in the x402 challenge; unset: the Host of the request. */
  publicBaseUrl?: string;
  /** The first steps of every call (trace, CORS, client address, place in flight), shared with express. */
  front: EdgeFront;
  bodies: BodyLimits;
  logger: Logger;
  metrics: Metrics;
  /** The data answers this replica keeps (edge/kept-data.ts); ttlMs 0 keeps none. */
  keptAnswers: KeptAnswersLimits;
}

/** Who the data service is told pays: no account, no plan; the payment buys any live metric. */
const X402_CALLER: Caller = { account_id: null, plan: null, auth: 'x402', key_id: null, session_id: null };

/**
 * Data calls (data-api-interface 4.1): the method, the credential (key, session, or none: x402),
 * the rate limit, the plan gate, the signed assertion and the hop to the data service. Both paths
 * take these same steps: the lean node:http listener of the hot path (no express: its path cost
 * 195-214 µs of CPU a request against 67-84 here, gateway/docs/proxy-bench.md) and the express
 * app's data route, after the same front (edge/call.ts).
 */
class DataEdge {
  private readonly dataTarget: ReturnType<typeof dataTargets>;
  private readonly admission: DataAdmission;
  private readonly forwarder: DataForwarder;
  private readonly kept: KeptData | undefined;
  private readonly paidCalls: PaidCalls;
  private readonly x402Calls: X402Calls;

  constructor(private readonly options: DataEdgeOptions) {
    this.dataTarget = dataTargets(options.catalog);
    this.admission = new DataAdmission(options);
    const kept =
      options.keptAnswers.ttlMs > 0 ? new KeptData(options.keptAnswers, options.metrics) : undefined;
    this.kept = kept;
    this.forwarder = new DataForwarder(options, (call) => this.paidCalls.sink(call), kept);
    this.paidCalls = new PaidCalls(options.payments, options.metrics, {
      challenge: (call, error, receipt) => this.x402Calls.challenge(call, error, receipt),
      serve: (call) => this.forwarder.forward(call, X402_CALLER),
      write: (call, status, rawHeaders, body) =>
        endWith(call.res, status, answerFields(rawHeaders, call.fields), body),
      upstreamFailed: (call, err) => this.forwarder.upstreamFailed(call, err),
      refuse,
      fail: (call, err) => this.fail(call, err),
    });
    this.x402Calls = new X402Calls(
      {
        x402: options.x402,
        payments: options.payments,
        fallbackHost: options.replicas.urls[0]!.host,
        ...(options.publicBaseUrl !== undefined ? { publicBaseUrl: options.publicBaseUrl } : {}),
      },
      this.paidCalls,
      (call) => this.forwarder.forward(call, ANONYMOUS),
    );
  }

  /**
   * The lean listener: the front, then the data steps. One `close` listener per call ends its
   * timer (an answer sent in full), gives back its place in flight and cancels its upstream
   * request if the client left first.
   */
  handle(req: IncomingMessage, res: ServerResponse): void {
    const started = performance.now();
    const call = this.dataCall(this.options.front.open(req, res, requestTrace(req)));
    res.on('close', () => {
      if (res.writableFinished) this.observe(req.method ?? 'GET', res.statusCode, started);
      call.leave?.();
      call.forwarding?.cancel();
    });
    if (call.preflight) return answerPreflight(call);
    const refused = this.options.front.enter(call);
    if (refused) return refuse(call, refused);
    this.serve(call);
  }

  /** Express step: a data path that reached the express app takes the same steps after its front. */
  route() {
    return (req: Request, res: Response, next: NextFunction): void => {
      if (!isDataPath(req.path)) return next();
      const call = this.dataCall(callOf(res)!);
      res.once('close', () => call.forwarding?.cancel());
      this.serve(call);
    };
  }

  async close(): Promise<void> {
    await this.forwarder.close();
  }

  private serve(call: DataCall): void {
    this.answer(call).catch((err: unknown) => this.fail(call, err));
  }

  forgetKept(products: readonly string[]): void {
    this.kept?.forget(products);
  }

  private async answer(call: DataCall): Promise<void> {
    const method = call.req.method;
    if (method !== 'GET' && method !== 'HEAD' && call.target) return this.wrongMethod(call);
    const admission = await this.admission.admit(call);
    if ('refused' in admission) refuse(call, admission.refused);
    else if ('caller' in admission) {
      // Admitted (key or session, rate limit, plan gate): a kept answer needs no hop.
      if (this.kept?.serve(call, admission.caller)) return;
      await this.forwarder.forward(call, admission.caller);
    } else await this.x402Calls.serve(call);
  }

  private dataCall(call: EdgeCall): DataCall {
    const url = call.req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    return {
      req: call.req,
      res: call.res,
      fields: call.fields,
      client: call.client,
      preflight: call.preflight,
      path,
      query: q < 0 ? '' : url.slice(q + 1),
      target: this.dataTarget(path),
    };
  }

  /** The request-duration histogram's series of each status of GETs, made once (no timer closures). */
  private readonly getDurations = new Map<number, (seconds: number) => void>();

  private observe(method: string, status: number, started: number): void {
    const seconds = (performance.now() - started) / 1000;
    const histogram = this.options.metrics.httpDuration;
    if (method !== 'GET')
      return histogram.observe({ method, route: 'data', status: String(status) }, seconds);
    let series = this.getDurations.get(status);
    if (series === undefined) {
      const child = histogram.labels({ method, route: 'data', status: String(status) });
      series = (v) => child.observe(v);
      this.getDurations.set(status, series);
    }
    series(seconds);
  }

  /** A metric is a GET resource: another method is a 405 with `Allow`, whatever the credential. */
  private wrongMethod(call: DataCall): void {
    const refusal = methodNotAllowed(call.req.method ?? '', call.path, ['GET', 'HEAD']);
    addFields(call.fields, refusal.headers);
    if (closesUnread(call.req, this.options.bodies)) call.fields.push(...CLOSE_FIELDS);
    refuse(call, refusal.body);
  }

  private fail(call: DataCall, err: unknown): void {
    this.options.logger.error({ err }, 'data edge failed');
    if (!call.res.headersSent) refuse(call, problem('internal', 'The server failed to answer this request.'));
  }
}

/**
 * The data path's request listener (the lean one), its express route (the same steps after the
 * express front), and the closing of its connections to the data service.
 */
export function dataEdge(options: DataEdgeOptions): {
  listener: (req: IncomingMessage, res: ServerResponse) => void;
  route: (req: Request, res: Response, next: NextFunction) => void;
  close: () => Promise<void>;
  /** Told by a data replica's notice that these products' data changed. */
  forgetKept: (products: readonly string[]) => void;
} {
  const edge = new DataEdge(options);
  return {
    listener: (req, res) => edge.handle(req, res),
    route: edge.route(),
    close: () => edge.close(),
    forgetKept: (products) => edge.forgetKept(products),
  };
}
