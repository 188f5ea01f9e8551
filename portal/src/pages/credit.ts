import { ApiError, call, get, purchase } from './api.js';
import { copyButton, h, local, replace, usd, type Page } from './dom.js';
import { form, problemBox } from './forms.js';
import { moneyWords, reasonWords } from './money.js';
import { qrImage } from './qr.js';
import { tierWords } from './words.js';

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
                h('td', {}, reasonWords(e.reason, e.ref)),
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
                h('td', {}, reasonWords(r.reason, r.ref)),
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
  const subscribe = purchase('/v1/audit/subscribe');
  replace(
    box,
    h('h2', {}, 'Audit subscription'),
    h(
      'p',
      { 'data-testid': 'subscription' },
      current?.active ? `${tierWords(current.tier)}, until ${local(current.expires_at)}.` : 'None.',
    ),
    form(
      [
        {
          name: 'tier',
          label: 'Subscribe for a month to',
          options: [
            ['audit_base', tierWords('audit_base')],
            ['audit_secure', tierWords('audit_secure')],
            ['audit_review', tierWords('audit_review')],
          ],
        },
      ],
      'Subscribe from credit',
      async (v) => {
        await subscribe({ tier: v.tier });
        await subscription(box);
      },
    ),
  );
}

/** How to top up: the money in words, the address and memo with copy buttons, and their QR code. */
async function topUp(t: Credits['topup']): Promise<HTMLElement> {
  const box = h('section', { 'aria-labelledby': 'topup-title', 'data-testid': 'topup' });
  box.append(h('h2', { id: 'topup-title' }, 'Top up'));
  if (!t.deposit_address) {
    box.append(
      h(
        'p',
        { role: 'status', 'data-testid': 'topup-unavailable' },
        'Top-ups are not available on this deployment: it has no deposit address set, so a payment would have nowhere to go. Ask the operator for credit meanwhile.',
      ),
    );
    return box;
  }
  const money = moneyWords(t.asset, t.network);
  box.append(
    h(
      'p',
      {},
      `Send ${money.label} to the address below with the memo exactly as shown; one USDC adds $1.00 of credit, and only this memo adds it to your account.`,
    ),
    h('p', { class: money.real ? 'muted' : 'warn', 'data-testid': 'network-note' }, money.note),
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
      `QR code to pay ${money.label}: deposit address ${t.deposit_address} with memo ${t.memo}`,
    ),
    h(
      'details',
      {},
      h('summary', {}, 'Technical details'),
      h(
        'dl',
        {},
        h('dt', {}, 'Network (CAIP-2)'),
        h('dd', {}, h('code', {}, t.network)),
        h('dt', {}, 'Token mint'),
        h('dd', {}, h('code', {}, t.asset)),
      ),
    ),
  );
  return box;
}

/**
 * A deployment with no deposit address refuses the credits answer (503 deposits_unavailable): the
 * page says why, naming the setting, and keeps the billing history and the subscription.
 */
async function depositsOff(main: HTMLElement, err: ApiError) {
  const boxes = [h('section', {}), h('section', {})];
  replace(
    main,
    h('h1', {}, 'Credit'),
    h('h2', {}, 'Top up'),
    h('p', { 'data-testid': 'topup-unavailable' }, 'Top-ups are not available on this deployment.'),
    problemBox(err),
    ...boxes,
  );
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
  } catch (e) {
    if (!(e instanceof ApiError) || e.status !== 503) throw e;
    if (e.problem.error_category === 'deposits_unavailable') return depositsOff(main, e);
    replace(
      main,
      h('h1', {}, 'Credit'),
      h(
        'p',
        { role: 'status', 'data-testid': 'topup-unavailable' },
        'Credit and top-ups are not available right now: the billing service did not answer. Try again in a minute.',
      ),
      problemBox(e),
    );
    return;
  }
  const boxes = [h('section', {}), h('section', {}), h('section', {})];
  replace(
    main,
    h('h1', {}, 'Credit'),
    h('p', {}, 'Balance: ', h('strong', { 'data-testid': 'balance' }, usd(credits.balance_atomic))),
    await topUp(credits.topup),
    ...boxes,
  );
  await Promise.all(
    [ledger(boxes[0]!), history(boxes[1]!), subscription(boxes[2]!)].map((p, i) =>
      p.catch((e: unknown) => boxes[i]!.append(problemBox(e))),
    ),
  );
};
