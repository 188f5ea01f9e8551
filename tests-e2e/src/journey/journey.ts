import { expect } from '@jest/globals';
import { z } from 'zod';
import { problemSchema } from '@meridian/contracts';
import { rememberSecret } from '@meridian/observability/testing';
import type { DnsPeer, LocalWallet, X402Facilitator } from '@meridian/test-peers';
import type { Mailbox } from '../accounts.js';
import type { System } from '../system.js';

export const PASSWORD = rememberSecret('quartz-meadow-lantern-93');
export const DOMAIN = 'shop.journey-e2e.example';
export const FREE_METRIC = '/v1/data/crypto/spot/reference_price?entity=BTC-USD';
/** A pro metric: refused to a free key, served once the account bought the pro plan. */
export const PRO_METRIC = '/v1/data/crypto/options/chain?entity=BTC';
/** What the user's wallet deposits as a top-up: 300 USDC. */
export const TOP_UP = 300_000_000;

/** What the journey runs in: the system and the peers playing the outside world. */
export interface JourneyWorld {
  system: System;
  smtp: Mailbox;
  dns: DnsPeer;
  facilitator: X402Facilitator;
  /** The wallet billing watches for top-ups. */
  depositAddress: string;
  /** The person's own wallet on the chain: 1000 USDC, and 1 SOL for the fee of the deposit it sends. */
  wallet: LocalWallet;
}

/**
 * One person on their way through the gateway's URL: the world around them, what each step learns
 * for the ones after it, and how the person calls the gateway (with the session of the moment).
 */
export class Journey {
  readonly email = `journey.${Date.now()}@example.com`;
  /** The session of the moment, and what the steps learn for the ones after them. */
  session = '';
  accountId = '';
  totpSecret = '';
  key = '';
  runId = '';
  depositSignature = '';
  bookingId = '';
  readonly system: System;
  readonly smtp: Mailbox;
  readonly dns: DnsPeer;
  readonly facilitator: X402Facilitator;
  readonly depositAddress: string;
  readonly wallet: LocalWallet;

  constructor(world: JourneyWorld) {
    this.system = world.system;
    this.smtp = world.smtp;
    this.dns = world.dns;
    this.facilitator = world.facilitator;
    this.depositAddress = world.depositAddress;
    this.wallet = world.wallet;
  }

  url(path: string): string {
    return `${this.system.gatewayUrl}${path}`;
  }

  bearer(): Record<string, string> {
    return { authorization: `Bearer ${this.session}` };
  }

  get(path: string, headers: Record<string, string> = this.bearer()): Promise<Response> {
    return fetch(this.url(path), { headers });
  }

  post(path: string, body: unknown, headers: Record<string, string> = this.bearer()): Promise<Response> {
    return fetch(this.url(path), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  }

  withKey(path: string): Promise<Response> {
    return this.get(path, { 'x-api-key': this.key });
  }
}

/** `{data}` of an answer in the envelope, read with `schema`. */
export const enveloped = <T extends z.ZodType>(schema: T) => z.object({ data: schema });

/** The answer's JSON read with `schema` (a failed parse names the field). */
export async function read<T extends z.ZodType>(res: Response, schema: T): Promise<z.output<T>> {
  return schema.parse(await res.json());
}

/** A problem+json of `status` and `category`, every field of the spec's problem present. */
export async function problemOf(res: Response, status: number, category: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  const problem = await read(res, problemSchema);
  expect(problem).toMatchObject({ status, error_category: category });
  return problem;
}

/** Calls `call` until `done` holds of its answer (events and the watcher take a moment), 20 s at most. */
export async function until(
  call: () => Promise<Response>,
  done: (res: Response) => boolean,
): Promise<Response> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const res = await call();
    if (done(res) || Date.now() > deadline) return res;
    await res.arrayBuffer();
    await new Promise((r) => setTimeout(r, 200));
  }
}
