import { ApiError, call, get, post } from './api.js';
import { copyButton, h, local, replace, usd } from './dom.js';
import { form, problemBox } from './forms.js';
import type { Page } from './main.js';
import { qrImage } from './qr.js';

interface Credits {
  balance_atomic: number;
  entries: Array<{
    id: number;
    created_at: string;
    delta_atomic: number;
    reason: string;
    ref: string | null;
  }>;
  next_before: number | null;
  topup: { deposit_address: string; memo: string; asset: string; network: string };
}

interface HistoryRow {
  id: string;
  at: string;
  reason: string;
  direction: string;
  amount_atomic: number;
  balance_delta_atomic: number;
  ref: string | null;
  tx_signature: string | null;
}

async function ledger(box: HTMLElement, before?: number) {
  const credits = await call<Credits>('GET', `/v1/credits?limit=10${before ? `&before=${before}` : ''}`);
  replace(
    box,
    h('h2', {}, 'Ledger'),
    credits.entries.length === 0
      ? h('p', { class: 'muted' }, 'No movement yet.')
      : h(
          'table',
          {},
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              h('th', {}, 'When'),
              h('th', {}, 'Reason'),
              h('th', {}, 'Amount'),
              h('th', {}, 'Reference'),
            ),
          ),
          h(
            'tbody',
            {},
            ...credits.entries.map((e) =>
              h(
                'tr',
                {},
                h('td', {}, local(e.created_at)),
                h('td', {}, e.reason),
                h('td', {}, usd(e.delta_atomic)),
                h('td', {}, h('code', {}, e.ref ?? '')),
              ),
            ),
          ),
        ),
    h(
      'div',
      { class: 'row' },
      before
        ? h('button', { type: 'button', class: 'secondary', onclick: () => void ledger(box) }, 'Newest')
        : null,
      credits.next_before
        ? h(
            'button',
            { type: 'button', class: 'secondary', onclick: () => void ledger(box, credits.next_before!) },
            'Older entries',
          )
        : null,
    ),
  );
}

async function history(box: HTMLElement, cursor?: string) {
  const answer = await call<{ data: HistoryRow[]; meta: { next_cursor: string | null } }>(
    'GET',
    `/v1/account/billing/history?limit=10${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
  );
  replace(
    box,
    h('h2', {}, 'Billing history'),
    answer.data.length === 0
      ? h('p', { class: 'muted' }, 'Nothing yet.')
      : h(
          'table',
          {},
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              h('th', {}, 'When'),
              h('th', {}, 'What'),
              h('th', {}, 'Amount'),
              h('th', {}, 'Balance change'),
              h('th', {}, 'Order'),
              h('th', {}, 'Transaction'),
            ),
          ),
          h(
            'tbody',
            {},
            ...answer.data.map((r) =>
              h(
                'tr',
                {},
                h('td', {}, local(r.at)),
                h('td', {}, `${r.reason} (${r.direction})`),
                h('td', {}, usd(r.amount_atomic)),
                h('td', {}, usd(r.balance_delta_atomic)),
                h('td', {}, h('code', {}, r.ref ?? '')),
                h('td', {}, h('code', {}, r.tx_signature ?? '')),
              ),
            ),
          ),
        ),
    h(
      'div',
      { class: 'row' },
      cursor
        ? h('button', { type: 'button', class: 'secondary', onclick: () => void history(box) }, 'Newest')
        : null,
      answer.meta.next_cursor
        ? h(
            'button',
            {
              type: 'button',
              class: 'secondary',
              onclick: () => void history(box, answer.meta.next_cursor!),
            },
            'Older rows',
          )
        : null,
    ),
  );
}

async function subscription(box: HTMLElement) {
  const current = await get<{ tier: string; granted_at: string; expires_at: string; active: boolean } | null>(
    '/v1/audit/subscription',
  ).catch((e: unknown) => {
    if (e instanceof ApiError && e.status === 404) return null;
    throw e;
  });
  replace(
    box,
    h('h2', {}, 'Audit subscription'),
    h(
      'p',
      { 'data-testid': 'subscription' },
      current?.active ? `${current.tier}, until ${local(current.expires_at)}.` : 'None.',
    ),
    form(
      [
        {
          name: 'tier',
          label: 'Subscribe for a month to',
          options: [
            ['audit_base', 'base'],
            ['audit_secure', 'secure'],
            ['audit_review', 'review'],
          ],
        },
      ],
      'Subscribe from credit',
      async (v) => {
        await post('/v1/audit/subscribe', { tier: v.tier });
        await subscription(box);
      },
    ),
  );
}

/** A deployment with no deposit address refuses the credits answer (503): the page says why and keeps the rest. */
async function depositsOff(main: HTMLElement, err: unknown) {
  const boxes = [h('section', {}), h('section', {})];
  replace(main, h('h1', {}, 'Credit'), h('h2', {}, 'Top up'), problemBox(err), ...boxes);
  await Promise.all(
    [history(boxes[0]!), subscription(boxes[1]!)].map((p, i) =>
      p.catch((e: unknown) => boxes[i]!.append(problemBox(e))),
    ),
  );
}

export const creditPage: Page = async (main) => {
  let credits: Credits;
  try {
    credits = await call<Credits>('GET', '/v1/credits?limit=1');
  } catch (err) {
    if (err instanceof ApiError && err.status === 503) return depositsOff(main, err);
    throw err;
  }
  const t = credits.topup;
  const boxes = [h('section', {}), h('section', {}), h('section', {})];
  replace(
    main,
    h('h1', {}, 'Credit'),
    h('p', {}, 'Balance: ', h('strong', { 'data-testid': 'balance' }, usd(credits.balance_atomic))),
    h('h2', {}, 'Top up'),
    h(
      'p',
      {},
      `Send ${t.asset} on ${t.network} to the address below with the memo exactly as shown; only this memo adds credit to your account.`,
    ),
    h(
      'dl',
      {},
      h('dt', {}, 'Address'),
      h(
        'dd',
        {},
        h('code', {}, t.deposit_address),
        ' ',
        copyButton(() => t.deposit_address, 'Copy address'),
      ),
      h('dt', {}, 'Memo'),
      h(
        'dd',
        {},
        h('code', {}, t.memo),
        ' ',
        copyButton(() => t.memo, 'Copy memo'),
      ),
    ),
    await qrImage(
      `solana:${t.deposit_address}?memo=${encodeURIComponent(t.memo)}`,
      `QR code: deposit address ${t.deposit_address} with memo ${t.memo}`,
    ),
    ...boxes,
  );
  await Promise.all(
    [ledger(boxes[0]!), history(boxes[1]!), subscription(boxes[2]!)].map((p, i) =>
      p.catch((e: unknown) => boxes[i]!.append(problemBox(e))),
    ),
  );
};
