import type { z } from 'zod';
import {
  RPC,
  balanceReadRequestSchema,
  creditRefundRequestSchema,
  creditSpendRequestSchema,
  orderRegisterRequestSchema,
  priceReadRequestSchema,
  subscriptionReadRequestSchema,
  type Result,
} from '@meridian/contracts';
import { resultHandler, type RpcRegistration } from '@meridian/runtime';
import { readBalance } from '../db/repositories/ledger.js';
import { allPrices } from '../db/repositories/prices.js';
import type { BillingDeps } from '../deps.js';
import { subscriptionOf } from '../flows/buy-period.js';
import { refundOrder } from '../flows/refund-order.js';
import { registerOrder } from '../flows/register-order.js';
import { spendForOrder } from '../flows/spend-for-order.js';
import type { BillingRefusal } from '../domain/refusals.js';
import { billingProblem } from '../routes/answer.js';

const handler = <S extends z.ZodType, T>(
  schema: S,
  run: (input: z.infer<S>) => Promise<Result<T, BillingRefusal>>,
) => resultHandler(schema, run, billingProblem);

/** Request/reply of billing for analysis and requests: pay, refund and quote orders; read balance, subscription and prices. */
export function rpcHandlers(deps: BillingDeps): RpcRegistration[] {
  return [
    {
      subject: RPC.billingCreditSpend,
      handler: handler(creditSpendRequestSchema, (req) => spendForOrder(deps, { ...req, actor: 'service' })),
    },
    {
      subject: RPC.billingCreditRefund,
      handler: handler(creditRefundRequestSchema, (req) => refundOrder(deps, req)),
    },
    {
      subject: RPC.billingBalanceRead,
      handler: handler(balanceReadRequestSchema, async ({ account_id }) => ({
        ok: true,
        value: { account_id, balance_atomic: await readBalance(deps.db, account_id) },
      })),
    },
    {
      subject: RPC.billingOrderRegister,
      handler: handler(orderRegisterRequestSchema, (req) => registerOrder(deps, req)),
    },
    {
      subject: RPC.billingSubscriptionRead,
      handler: handler(subscriptionReadRequestSchema, async ({ account_id }) => ({
        ok: true,
        value: await subscriptionOf(deps.db, account_id, 'audit', new Date()),
      })),
    },
    {
      subject: RPC.billingPriceRead,
      handler: handler(priceReadRequestSchema, async ({ items }) => {
        const prices = await allPrices(deps.db);
        return {
          ok: true,
          value: { prices: items.map((item) => ({ item, price_atomic: prices.get(item) ?? null })) },
        };
      }),
    },
  ] as RpcRegistration[];
}
