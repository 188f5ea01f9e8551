import request from 'supertest';
import { CompiledQuery } from 'kysely';
import { waitFor } from '@meridian/bus/testing';
import type { Platform } from '../platform-harness.js';

export const RUN_PRICE = { audit_base: 9_000_000, audit_secure: 29_000_000 };

/**
 * The calls the platform tests make of the first replica, as an account, and their reads of what
 * it stored. `platform` answers the harness the test file started.
 */
export function platformCalls(platform: () => Platform) {
  /** Reads the service's tables as an operator would (the tests check what is stored). */
  const sql = {
    query: async (text: string, params: unknown[] = []) =>
      (await platform().a.deps.db.executeQuery(CompiledQuery.raw(text, params))) as {
        rows: Array<Record<string, any>>;
      },
  };
  const get = async (account: string, path: string) =>
    request(platform().a.app)
      .get(path)
      .set(await platform().as(account));
  const post = async (account: string, path: string, body: object, headers: Record<string, string> = {}) =>
    request(platform().a.app)
      .post(path)
      .set({ ...(await platform().as(account)), ...headers })
      .send(body);
  const runOf = async (account: string, domain: string, id: string) =>
    (await get(account, `/v1/analysis/reports?domain=${domain}`)).body.data.find(
      (r: { id: string }) => r.id === id,
    );
  const settled = async (account: string, domain: string, id: string) => {
    let run: { status: string } | undefined;
    await waitFor(
      async () => {
        run = await runOf(account, domain, id);
        // Settled: finished, and a refund it is owed asked of billing (that follows the failure).
        return (
          (run?.status === 'succeeded' || run?.status === 'failed') &&
          (run as { refund?: string }).refund !== 'pending'
        );
      },
      { what: `run ${id} settled`, timeoutMs: 30_000 },
    );
    return run as Record<string, unknown>;
  };
  return { sql, get, post, settled };
}
