import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { expect } from '@jest/globals';
import type { Page } from 'playwright-core';
import type { Prices } from '@meridian/contracts';
// The portal's one money formatter (its unit test pins what it writes): the pages must show each
// price of the API through it, so the expectation is written with it rather than a copy.
import { dollars } from '../../portal/src/pages/money.js';

export const SCREENSHOTS = 'artifacts/screenshots';
const axeSource = readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Checks the page with axe-core (no serious or critical violation) and saves a screenshot. */
export async function check(page: Page, name: string): Promise<void> {
  await page.evaluate(await axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: { run(): Promise<{ violations: Array<{ id: string; impact: string; nodes: unknown[] }> }> };
      }
    ).axe;
    const result = await axe.run();
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.nodes.length})`);
  });
  await page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true });
  expect({ page: name, violations }).toEqual({ page: name, violations: [] });
}

/** The JSON body of the next answer the page receives for a URL matching `path`. */
export async function answerTo<T>(page: Page, path: RegExp, action: () => Promise<void>): Promise<T> {
  const [response] = await Promise.all([
    page.waitForResponse((r) => path.test(r.url()) && r.request().method() === 'GET'),
    action(),
  ]);
  return (await response.json()) as T;
}

interface Catalog {
  categories: Array<{ products: Array<{ metrics: Array<{ status: string }> }> }>;
}

/**
 * The landing page says what /v1/billing/prices and /v1/catalog answer: every plan's limit and
 * price, every run and subscription price, the per-call prices, the live metric count; the money
 * in words, never the bare mint or CAIP-2 id.
 */
export async function expectLandingToShowPrices(page: Page): Promise<void> {
  const [prices, catalog] = (await page.evaluate(async () =>
    Promise.all(
      ['/v1/billing/prices', '/v1/catalog'].map(
        async (u) => ((await (await fetch(u)).json()) as { data: unknown }).data,
      ),
    ),
  )) as [Prices, Catalog];
  const text = await page.locator('main').innerText();
  expect(text).toMatch(/audit portal/i);
  expect(text).toMatch(/data API/i);
  const shown = (id: string) => page.getByTestId(id).innerText();
  for (const plan of prices.plans) {
    await expect(page.locator(`tr[data-plan="${plan.plan}"]`).innerText()).resolves.toContain(
      String(plan.rate_limit_per_minute),
    );
    await expect(shown(`plan-price-${plan.plan}`)).resolves.toBe(
      plan.plan === 'free' ? 'free, no card' : dollars(plan.monthly_price_atomic!),
    );
  }
  for (const run of prices.analysis_runs)
    await expect(shown(`run-price-${run.tier}`)).resolves.toBe(dollars(run.price_atomic!));
  for (const sub of prices.audit_subscriptions)
    await expect(shown(`subscription-price-${sub.tier}`)).resolves.toBe(dollars(sub.price_atomic!));
  const perCall = await shown('per-call');
  for (const p of prices.pay_per_call.prices) expect(perCall).toContain(dollars(p.amount_atomic));
  expect(text).toContain('USDC on Solana');
  expect(text).not.toContain(prices.pay_per_call.asset);
  expect(text).not.toContain(prices.pay_per_call.network);
  const live = catalog.categories
    .flatMap((c) => c.products.flatMap((p) => p.metrics))
    .filter((m) => m.status === 'live').length;
  await expect(shown('catalogue-size')).resolves.toContain(`${live} live metrics`);
}
