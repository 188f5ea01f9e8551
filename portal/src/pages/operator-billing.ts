import { get, post } from './api.js';
import { h, local, replace, usd } from './dom.js';
import { form } from './forms.js';

/** The console's money section: unmatched deposits, and grants, revocations and refunds, each with a reason. */

interface Deposit {
  tx_signature: string;
  amount_atomic: number;
  memo: string | null;
  recorded_at: string;
}

/** Whole dollars and cents typed by a person, as atomic units (no floating arithmetic). */
function atomicOf(text: string): number {
  const match = /^(\d+)(?:\.(\d{1,6}))?$/.exec(text.trim());
  if (!match) throw new Error('Amount: a number of USD, e.g. 12.50');
  return Number(match[1]) * 1_000_000 + Number((match[2] ?? '').padEnd(6, '0'));
}

function depositRow(d: Deposit, refresh: () => Promise<void>): HTMLElement {
  const path = `/v1/operator/billing/deposits/${encodeURIComponent(d.tx_signature)}`;
  return h(
    'li',
    {},
    h(
      'p',
      {},
      `${usd(d.amount_atomic)} on ${local(d.recorded_at)}, memo ${JSON.stringify(d.memo)} `,
      h('code', {}, d.tx_signature),
    ),
    form(
      [
        { name: 'account_id', label: 'Assign to account id', required: true },
        { name: 'reason', label: 'Reason for assigning', required: true },
      ],
      'Assign',
      async (v) => {
        await post(`${path}/assign`, { account_id: v.account_id, reason: v.reason });
        await refresh();
      },
    ),
    form(
      [{ name: 'reason', label: 'Returned on chain: reason and transaction', required: true }],
      'Record as returned',
      async (v) => {
        await post(`${path}/return`, { reason: v.reason });
        await refresh();
      },
    ),
  );
}

interface OpenPayment {
  payment_id: string;
  payer: string | null;
  amount_atomic: number;
  resource: string;
  transaction: string | null;
  reason: string | null;
  created_at: string;
}

/** Pay-per-call payments reconciliation could not close: what an operator settles by hand. */
async function openPayments(): Promise<HTMLElement> {
  const rows = await get<OpenPayment[]>('/v1/operator/billing/x402-unreconciled');
  const list = h('div', { 'data-testid': 'x402-unreconciled' });
  replace(
    list,
    rows.length === 0
      ? h('p', { class: 'muted' }, 'No pay-per-call payment is left open.')
      : h(
          'ul',
          {},
          ...rows.map((p) =>
            h(
              'li',
              {},
              `${usd(p.amount_atomic)} for ${p.resource} on ${local(p.created_at)}, from ${p.payer ?? 'an unknown payer'}: ${p.reason ?? 'no reason recorded'} `,
              p.transaction ? h('code', {}, p.transaction) : '',
            ),
          ),
        ),
  );
  return list;
}

export async function billingSection(): Promise<HTMLElement> {
  const list = h('div', { 'data-testid': 'deposits' });
  const refresh = async () => {
    const rows = await get<Deposit[]>('/v1/operator/billing/deposits');
    replace(
      list,
      rows.length === 0
        ? h('p', { class: 'muted' }, 'No unmatched deposit.')
        : h('ul', {}, ...rows.map((d) => depositRow(d, refresh))),
    );
  };
  await refresh();
  const done = h('p', { role: 'status', 'data-testid': 'credit-done' });
  const credit = form(
    [
      {
        name: 'action',
        label: 'Action',
        options: [
          ['grant', 'grant credit'],
          ['revoke', 'revoke credit'],
          ['refund', 'refund an order'],
        ],
      },
      { name: 'account_id', label: 'Account id', required: true },
      { name: 'amount', label: 'Amount in USD (a refund without one gives back all that is left)' },
      { name: 'order_id', label: 'Order id (refunds only)' },
      { name: 'reason', label: 'Reason', required: true },
    ],
    'Apply',
    async (v) => {
      const amount = v.amount ? { amount_atomic: atomicOf(v.amount) } : {};
      const body =
        v.action === 'refund'
          ? { account_id: v.account_id, order_id: v.order_id, reason: v.reason, ...amount }
          : { account_id: v.account_id, reason: v.reason, ...amount };
      const answer = await post<{ balance_atomic: number }>(`/v1/operator/billing/${v.action}`, body);
      replace(done, `Done: the balance is now ${usd(answer.balance_atomic)}.`);
    },
  );
  return h(
    'section',
    {},
    h('h2', {}, 'Credit and deposits'),
    credit,
    done,
    h('h3', {}, 'Unmatched deposits'),
    list,
    h('h3', {}, 'Pay-per-call payments left open'),
    await openPayments(),
  );
}
