import { purchase } from './api.js';
import { h, local, replace, usd } from './dom.js';
import { action, form } from './forms.js';
import { dollars } from './money.js';
import { opGet, opPost, opStep, personOf, who, type Person } from './operator-api.js';

/**
 * The console's money section: unmatched deposits, and grants, revocations and refunds, each with a
 * reason. The account is typed as an email (or an id); a change of credit is first stated in
 * words (the amount in dollars, the account's email) and posted only once confirmed.
 */

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
        { name: 'account', label: 'Assign to account (email)', required: true },
        { name: 'reason', label: 'Reason for assigning', required: true },
      ],
      'Assign',
      async (v) => {
        const person = await accountOf(v.account ?? '');
        await opPost(`${path}/assign`, { account_id: person.id, reason: v.reason });
        await refresh();
      },
    ),
    form(
      [{ name: 'reason', label: 'Returned on chain: reason and transaction', required: true }],
      'Record as returned',
      async (v) => {
        await opPost(`${path}/return`, { reason: v.reason });
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
  const rows = await opGet<OpenPayment[]>('/v1/operator/billing/x402-unreconciled');
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
    const rows = await opGet<Deposit[]>('/v1/operator/billing/deposits');
    replace(
      list,
      rows.length === 0
        ? h('p', { class: 'muted' }, 'No unmatched deposit.')
        : h('ul', {}, ...rows.map((d) => depositRow(d, refresh))),
    );
  };
  await refresh();
  const done = h('div', { 'data-testid': 'credit-done' });
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
      { name: 'account', label: 'Account (email)', required: true, autocomplete: 'off' },
      { name: 'amount', label: 'Amount in USD (a refund without one gives back all that is left)' },
      { name: 'order_id', label: 'Order id (refunds only)' },
      { name: 'reason', label: 'Reason', required: true },
    ],
    'Review',
    async (v) => {
      replace(done, '');
      const person = await accountOf(v.account ?? '');
      const change = changeOf(v, person);
      replace(
        done,
        confirmStep(change, () => replace(done, '')),
      );
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

/** The account an operator typed, or the reason there is none. */
async function accountOf(typed: string): Promise<Person> {
  const person = await personOf(typed);
  if (!person) throw new Error(`No account has the email or id "${typed.trim()}".`);
  return person;
}

interface CreditChange {
  kind: 'grant' | 'revoke' | 'refund';
  person: Person;
  body: Record<string, unknown>;
  /** What the confirm step says, in words. */
  words: string;
}

function changeOf(v: Record<string, string>, person: Person): CreditChange {
  const kind = v.action === 'revoke' || v.action === 'refund' ? v.action : 'grant';
  const atomic = v.amount ? atomicOf(v.amount) : undefined;
  if (kind !== 'refund' && atomic === undefined) throw new Error('Amount: a number of USD, e.g. 12.50');
  const amount = atomic === undefined ? {} : { amount_atomic: atomic };
  const body =
    kind === 'refund'
      ? { account_id: person.id, order_id: v.order_id, reason: v.reason, ...amount }
      : { account_id: person.id, reason: v.reason, ...amount };
  const sum = atomic === undefined ? 'all that is left' : dollars(atomic);
  const words = {
    grant: `Grant ${sum} of credit to ${who(person.id)}?`,
    revoke: `Take ${sum} of credit back from ${who(person.id)}?`,
    refund: `Refund ${sum} of order ${v.order_id ?? ''} to ${who(person.id)}?`,
  }[kind];
  return { kind, person, body, words };
}

/** The change stated in words, posted only when confirmed; one Idempotency-Key per change. */
function confirmStep(change: CreditChange, cancel: () => void): HTMLElement {
  const send = purchase<{ balance_atomic: number }>(`/v1/operator/billing/${change.kind}`);
  const box = h('div', { class: 'confirm', 'data-testid': 'credit-confirm' });
  const confirm = async () => {
    const answer = await opStep(() => send(change.body));
    replace(
      box,
      h(
        'p',
        { role: 'status' },
        `Done: the balance of ${who(change.person.id)} is now ${dollars(answer.balance_atomic)}.`,
      ),
    );
  };
  replace(
    box,
    h('p', {}, h('strong', {}, change.words), ` Reason: ${String(change.body.reason)}`),
    h(
      'div',
      { class: 'row' },
      action(`Confirm ${change.kind}`, confirm, ''),
      action('Cancel', async () => cancel()),
    ),
  );
  return box;
}
