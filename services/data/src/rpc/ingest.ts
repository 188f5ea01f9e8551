import { RPC, ingestBatchSchema, type IngestSummary, type RpcReply } from '@meridian/contracts';
import { problem } from '@meridian/http-kit';
import type { RpcRegistration } from '@meridian/runtime';
import type { Ingestor } from '../flows/ingestor.js';
import { dataProblem } from '../routes/answer.js';

/** rpc.data.ingest.v1: the bus face of the ingestion function; a bad or refused batch answers a 400 problem. */
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
      const result = await ingestor.ingest(parsed.data);
      if (!result.ok) return { ok: false, problem: dataProblem(result) };
      return { ok: true, data: result.value };
    },
  } satisfies RpcRegistration;
}
