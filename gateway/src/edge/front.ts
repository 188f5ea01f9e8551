import type { NextFunction, Request, Response } from 'express';
import { currentTrace } from '@meridian/observability';
import { requestTrace } from '@meridian/http-kit';
import { answerPreflight, refuse, type EdgeCall, type EdgeFront } from './call.js';

/** The call the front opened for an express request (set by openedCalls). */
export function callOf(res: Response): EdgeCall | undefined {
  return res.locals.call as EdgeCall | undefined;
}

/**
 * Express step, first of the gateway's own: the call of edge/call.ts, its fields set on the answer
 * (whoever writes it: a document, the proxy, a refusal), and the preflight answered. The trace is
 * the one http-kit's app started for the request, so the fields repeat what it echoed.
 */
export function openedCalls(front: EdgeFront) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const call = front.open(req, res, currentTrace() ?? requestTrace(req));
    res.locals.call = call;
    const { fields } = call;
    for (let i = 0; i < fields.length; i += 2) res.setHeader(fields[i]!, fields[i + 1]!);
    if (call.preflight) return answerPreflight(call);
    next();
  };
}

/** Express step: a place in flight per client address until the answer is done or the connection closes. */
export function inFlightPerClient(front: EdgeFront) {
  return (_req: Request, res: Response, next: NextFunction): void => {
    const call = callOf(res)!;
    const refused = front.enter(call);
    // Closed after the answer: a body this request may still be sending is never read.
    if (refused) return refuse(call, refused);
    res.once('close', call.leave!);
    next();
  };
}
