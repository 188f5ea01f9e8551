import { ApiError, get, purchase } from './api.js';
import { h, local, replace } from './dom.js';
import { form } from './forms.js';
import { dollars } from './money.js';
import { session } from './session.js';
import { planWords } from './words.js';

/** GET and POST /v1/billing/plan: billing's word on the data plan, current at once. */
interface PlanState {
  plan: string;
  expires_at: string | null;
  active: boolean;
}

interface PlanPrice {
  plan: string;
  monthly_price_atomic: number | null;
}

const planNow = (state: PlanState | null, fallback: string) =>
  `Plan: ${planWords(state?.plan ?? fallback)}${state?.active ? `, paid until ${local(state.expires_at)}` : ''}.`;

/** What was bought, said back: the plan, its price and when the paid month ends. */
function confirmation(bought: string, price: number | null, state: PlanState): HTMLElement {
  const started = state.plan === bought;
  return h(
    'div',
    { class: 'card ok', role: 'status', 'data-testid': 'plan-bought' },
    h('strong', {}, `Bought: a month of ${planWords(bought)}`),
    price === null ? '.' : ` for ${dollars(price)}, paid from credit.`,
    ' ',
    started
      ? `Your plan is now ${planWords(bought)}, until ${local(state.expires_at)}.`
      : `It starts when your ${planWords(state.plan)} month ends, on ${local(state.expires_at)}.`,
    ' ',
    h('a', { href: '#/credit' }, 'See it on the Credit page'),
  );
}

/**
 * The data plan: the current one, and a month of another bought from credit. The answer of the
 * purchase is shown at once (billing's word, before identity hears of the change), with what was
 * bought; the account is read again so every other page sees the new plan.
 */
export async function planSection(box: HTMLElement, fallback: string, done?: HTMLElement): Promise<void> {
  const [current, prices] = await Promise.all([
    get<PlanState>('/v1/billing/plan').catch((e: unknown) => {
      if (e instanceof ApiError && e.status === 404) return null;
      throw e;
    }),
    get<{ plans: PlanPrice[] }>('/v1/billing/prices'),
  ]);
  const sold = prices.plans.filter((p) => p.monthly_price_atomic !== null && p.plan !== 'free');
  const priceOf = (plan: string) => sold.find((p) => p.plan === plan)?.monthly_price_atomic ?? null;
  const buy = purchase<PlanState>('/v1/billing/plan');
  replace(
    box,
    h('h2', {}, 'Data plan'),
    h('p', { 'data-testid': 'plan' }, planNow(current, fallback)),
    done ?? null,
    form(
      [
        {
          name: 'plan',
          label: 'Buy a month of',
          options: sold.map((p) => [p.plan, `${planWords(p.plan)}, ${dollars(p.monthly_price_atomic!)}`]),
        },
      ],
      'Buy from credit',
      async (v) => {
        const state = await buy({ plan: v.plan });
        session.clear();
        const account = await session.load();
        await planSection(box, account?.plan ?? fallback, confirmation(v.plan!, priceOf(v.plan!), state));
      },
    ),
    h(
      'p',
      { class: 'muted' },
      'What each plan includes: ',
      h('a', { href: '#/welcome' }, 'plans and prices'),
      '. Credit: ',
      h('a', { href: '#/credit' }, 'top up'),
      '.',
    ),
  );
}
