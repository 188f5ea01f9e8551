import { call, get, purchase } from './api.js';
import { h, local, replace, usd, type Page } from './dom.js';
import { form } from './forms.js';
import { moneyWords } from './money.js';
import { bookingStateWords } from './words.js';

interface Booking {
  id: string;
  starts_at: string;
  status: string;
  payment?: 'credit' | 'deposit';
  amount_atomic?: number | null;
  pay?: { asset: string; network: string; deposit_address: string; memo: string } | null;
}

interface Slot {
  starts_at: string;
  ends_at: string;
  available: boolean;
}

/** A service request: recorded as the person's intent, answered with how often they asked. */
function serviceRequestForm(counted: HTMLElement): HTMLFormElement {
  return form(
    [
      {
        name: 'kind',
        label: 'Kind',
        options: [
          ['pentest', 'penetration test'],
          ['pentest_discussion', 'discuss a penetration test'],
          ['consultancy', 'consultancy'],
        ],
      },
      { name: 'domain', label: 'Domain (not for consultancy)' },
      { name: 'detail', label: 'Detail', type: 'textarea' },
    ],
    'Send request',
    async (v) => {
      const answer = await call<{ ok: boolean; count: number }>('POST', '/v1/requests', {
        kind: v.kind,
        ...(v.domain ? { domain: v.domain } : {}),
        ...(v.detail ? { detail: v.detail } : {}),
      });
      replace(
        counted,
        h(
          'p',
          { class: 'ok', 'data-testid': 'request-count' },
          `Recorded. You have asked for this ${answer.count} time${answer.count === 1 ? '' : 's'}.`,
        ),
      );
    },
  );
}

/** The person's bookings, each with its status and how it is paid. */
function bookingList(rows: Booking[]): HTMLElement {
  if (rows.length === 0) return h('p', { class: 'muted' }, 'None yet.');
  return h(
    'ul',
    {},
    ...rows.map((b) =>
      h(
        'li',
        {},
        `${local(b.starts_at)} — ${bookingStateWords(b.status)}${b.payment ? ` (${usd(b.amount_atomic ?? null)}, ${b.payment === 'credit' ? 'from credit' : 'on chain'})` : ''}`,
      ),
    ),
  );
}

export const consultingPage: Page = async (main) => {
  const [slots, bookings] = await Promise.all([
    get<Slot[]>('/v1/consulting/slots'),
    get<Booking[]>('/v1/consulting/bookings'),
  ]);
  const free = slots.filter((s) => s.available).slice(0, 50);
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const booked = h('div', { role: 'status' });
  const list = h('div', { 'data-testid': 'bookings' });
  const showBookings = (rows: Booking[]) => replace(list, bookingList(rows));
  showBookings(bookings);
  const counted = h('div', { role: 'status' });
  const book = purchase<Booking>('/v1/consulting/bookings');
  replace(
    main,
    h('h1', {}, 'Consulting'),
    h('h2', {}, 'Book a slot'),
    h('p', { class: 'muted' }, `Times in your time zone (${zone}).`),
    free.length === 0
      ? h('p', {}, 'No free slot in the next two weeks.')
      : form(
          [
            {
              name: 'starts_at',
              label: 'Slot',
              options: free.map((s) => [
                s.starts_at,
                `${local(s.starts_at)} – ${new Date(s.ends_at).toLocaleTimeString(undefined, { timeStyle: 'short' })}`,
              ]),
            },
            { name: 'topic', label: 'Topic', type: 'textarea' },
            {
              name: 'payment',
              label: 'Pay',
              options: [
                ['credit', 'from credit'],
                ['deposit', 'on chain'],
              ],
            },
          ],
          'Book',
          async (v) => {
            const booking = await book({
              starts_at: v.starts_at,
              ...(v.topic ? { topic: v.topic } : {}),
              payment: v.payment,
            });
            replace(
              booked,
              h(
                'p',
                { class: 'ok', 'data-testid': 'booking' },
                `Booking ${bookingStateWords(booking.status ?? '')} for ${local(booking.starts_at ?? v.starts_at)}${booking.status === 'confirmed' && booking.payment === 'credit' ? `, ${usd(booking.amount_atomic ?? null)} paid from credit` : ''}.`,
              ),
              booking.pay
                ? h(
                    'p',
                    {},
                    `Pay ${usd(booking.amount_atomic ?? null)} in ${moneyWords(booking.pay.asset, booking.pay.network).label} to `,
                    h('code', {}, booking.pay.deposit_address),
                    ' with memo ',
                    h('code', {}, booking.pay.memo),
                  )
                : null,
            );
            showBookings(await get<Booking[]>('/v1/consulting/bookings'));
          },
        ),
    booked,
    h('h2', {}, 'Your bookings'),
    list,
    h('h2', {}, 'Service requests'),
    h('p', { class: 'muted' }, 'A request records your intent; an operator reviews it. Nothing is scanned.'),
    serviceRequestForm(counted),
    counted,
  );
};
