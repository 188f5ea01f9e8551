import type { ServiceDeps } from '@meridian/runtime';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import type { ReplayNote } from './domain/envelope.js';
import type { MetricAnswer } from './domain/metric-resolver.js';
import { createIngestor, type Ingestor } from './ingest/ingestor.js';
import { REPLAY_METHOD, REPLAYED_MARKETS } from './replay/market-replay.js';

export type Deps = ServiceDeps<Database, Config>;

/** What the routes, the rpc handler and the replay share inside one process. */
export interface DataContext {
  ingestor: Ingestor;
  /** Says so when an answer rests on replayed recordings (DATA_REPLAY=on). */
  replayNote(answer: MetricAnswer): ReplayNote | undefined;
}

const contexts = new WeakMap<Deps, DataContext>();

/** One context per deps object: startService hands the same deps to routes, rpc and background. */
export function dataContext(deps: Deps): DataContext {
  let ctx = contexts.get(deps);
  if (!ctx) {
    const replaying = deps.config.DATA_REPLAY === 'on';
    ctx = {
      ingestor: createIngestor(deps.db),
      replayNote: (answer) => {
        if (!replaying) return undefined;
        const recorded = answer.sources
          .map((s) => `${s.venue}:${s.symbol ?? ''}`)
          .filter((label) => REPLAYED_MARKETS.has(label));
        return recorded.length > 0
          ? { recorded: [...new Set(recorded)].join(', '), method: REPLAY_METHOD }
          : undefined;
      },
    };
    contexts.set(deps, ctx);
  }
  return ctx;
}
