import { Counter } from 'prom-client';
import type { Caller } from '@meridian/contracts';
import type { Metrics } from '@meridian/observability';
import { agedAnswer, keptAnswerKey, KeptAnswers, type KeptAnswersLimits } from '../domain/kept-answers.js';
import { answerFields, type AnswerKeeper, type DataCall } from './data-forward.js';

/**
 * The data answers this replica keeps, on the data path: a call admitted (key or session, rate
 * limit, plan gate) whose answer is kept gets it here, aged to now, with no hop; a miss is
 * forwarded and its answer kept on the way back when the data service says it may be.
 */
export class KeptData implements AnswerKeeper {
  private readonly answers: KeptAnswers;
  private readonly hits: Counter.Internal;
  private readonly misses: Counter.Internal;
  private readonly kept: Counter.Internal;

  constructor(limits: KeptAnswersLimits, metrics: Metrics) {
    this.answers = new KeptAnswers(limits);
    const outcomes = new Counter({
      name: 'gateway_data_kept_answers_total',
      help: 'Admitted data GETs by outcome: hit (answered from this replica), miss (forwarded), kept (a miss whose answer was kept)',
      labelNames: ['outcome'],
      registers: [metrics.registry],
    });
    this.hits = outcomes.labels('hit');
    this.misses = outcomes.labels('miss');
    this.kept = outcomes.labels('kept');
  }

  /** True when the call was answered from memory; else it is marked to be kept on its way back. */
  serve(call: DataCall, caller: Caller): boolean {
    if (call.req.method !== 'GET' || call.paid || caller.plan === null) return false;
    const key = keptAnswerKey(caller.plan, call.path, call.query);
    const now = Date.now();
    const kept = this.answers.get(key, now);
    if (kept === undefined) {
      call.keepAs = key;
      this.misses.inc();
      return false;
    }
    const body = agedAnswer(kept, now);
    const fields = answerFields(kept.fields, call.fields);
    fields.push('content-length', String(body.length));
    call.res.writeHead(200, fields);
    call.res.end(body, 'latin1');
    this.hits.inc();
    return true;
  }

  /** A data replica stored rows these products read: their kept answers are not served again. */
  forget(products: readonly string[]): void {
    this.answers.forget(products);
  }

  /** The whole answer to a call marked by `serve`. */
  keep(key: string, status: number, rawFields: string[], body: Buffer): void {
    if (this.answers.keep(key, status, rawFields, body, Date.now())) this.kept.inc();
  }
}
