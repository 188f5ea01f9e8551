import { RPC, ingestBatchSchema, type IngestSummary, type RpcReply } from '@meridian/contracts';
import { HttpProblem, problem } from '@meridian/http-kit';
import type { Ingestor } from './ingestor.js';

/** rpc.data.ingest.v1: the bus face of the ingestion function; a bad batch answers a 400 problem. */
export function ingestRpc(ingestor: Ingestor) {
  return {
    subject: RPC.dataIngest,
    handler: async (req: unknown): Promise<RpcReply<IngestSummary>> => {
      const parsed = ingestBatchSchema.safeParse(req);
      if (!parsed.success) {
        const errors = parsed.error.issues.map((i) => ({
          path: ['batch', ...i.path.map(String)].join('.'),
          message: i.message,
        }));
        return {
          ok: false,
          problem: problem(
            'validation_failed',
            errors
              .map((e) => `${e.path}: ${e.message}`)
              .join('; ')
              .slice(0, 500),
            { errors: errors.slice(0, 20) },
          ),
        };
      }
      try {
        return { ok: true, data: await ingestor.ingest(parsed.data) };
      } catch (err) {
        // A batch the catalogue refuses (a market it does not list) answers its 400 problem.
        if (err instanceof HttpProblem) return { ok: false, problem: err.body };
        throw err;
      }
    },
  };
}
