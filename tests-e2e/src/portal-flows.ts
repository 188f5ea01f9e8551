import { expect } from '@jest/globals';
import type { Page } from 'playwright-core';
import { answerTo, check } from './browser-checks.js';

/**
 * Parts of the portal test's walk through the pages, each on the signed-in person's page at the
 * portal's `base` URL.
 */

/** A consulting slot booked from credit, a service request counted, a subscription bought once. */
export async function consultingAndSubscription(page: Page, base: string): Promise<void> {
  // Consulting: a slot in the person's own time zone, booked from credit; a service request counted.
  await page.goto(`${base}/#/consulting`);
  // The first slots may start within the booking notice (an hour here): take one further on.
  const slot = page.getByLabel('Slot');
  await slot.selectOption({ index: 3 });
  await page.getByRole('button', { name: 'Book' }).click();
  await page.getByTestId('booking').waitFor();
  await expect(page.getByTestId('booking').textContent()).resolves.toMatch(/confirmed.*paid from credit/);
  await expect(page.getByTestId('bookings').textContent()).resolves.toMatch(
    /confirmed \(\$[\d.]+, from credit\)/,
  );
  await page.getByLabel('Kind').selectOption('consultancy');
  await page.getByRole('button', { name: 'Send request' }).click();
  await expect(page.getByTestId('request-count').textContent()).resolves.toContain('this 1 time.');
  await page.getByRole('button', { name: 'Send request' }).click();
  await page.getByText('this 2 times.').waitFor();
  await check(page, '09-consulting');
  // Paid from credit: the balance went down.
  await page.goto(`${base}/#/credit`);
  await page.getByTestId('balance').waitFor();
  await expect(page.getByTestId('balance').textContent()).resolves.not.toBe('$300.00');
  // A purchase sent twice (a double click, Enter twice) charges once: one key, one ledger row.
  const before = (await page.evaluate(
    async () => ((await (await fetch('/v1/credits')).json()) as { balance_atomic: number }).balance_atomic,
  )) as number;
  const sent: string[] = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && r.url().endsWith('/v1/audit/subscribe'))
      sent.push(r.headers()['idempotency-key'] ?? '');
  });
  await page.locator('form', { has: page.getByLabel('Subscribe for a month to') }).evaluate((f) => {
    (f as unknown as { requestSubmit(): void }).requestSubmit();
    (f as unknown as { requestSubmit(): void }).requestSubmit();
  });
  await page
    .getByTestId('subscription')
    .getByText(/Base audit, until/)
    .waitFor();
  const credits = (await page.evaluate(async () => (await fetch('/v1/credits')).json())) as {
    balance_atomic: number;
    entries: Array<{ reason: string }>;
  };
  expect(sent).toHaveLength(2);
  expect(sent[0]).toMatch(/^[0-9a-f]{32}$/);
  expect(sent[1]).toBe(sent[0]);
  expect(credits.entries.filter((e) => e.reason === 'subscription')).toHaveLength(1);
  expect(before - credits.balance_atomic).toBe(49_000_000);
}

/**
 * The data explorer in the person's walk: the catalogue, the demo, then OHLCV picked by name and
 * read with the session alone (the key made earlier is neither asked for nor shown), drawn as
 * candles, one per bar (tests-e2e/data-explorer.test.ts tests the explorer in depth).
 */
export async function exploreData(page: Page, base: string, key: string): Promise<void> {
  await page.goto(`${base}/#/data`);
  await page.getByTestId('categories').waitFor({ state: 'attached' });
  await expect(page.getByTestId('categories').textContent()).resolves.toContain('Crypto');
  await answerTo(page, /\/v1\/demo$/, () =>
    page.getByRole('button', { name: 'Show the free demo snapshot' }).click(),
  );
  await page.getByTestId('raw-json').waitFor({ state: 'attached' });
  await page.getByLabel('Category').selectOption({ label: 'Crypto' });
  await page.getByLabel('Product').selectOption({ label: 'Spot' });
  await page.getByLabel('Metric').selectOption('ohlcv');
  await page.getByLabel('Bar interval').selectOption('1h');
  const series = await answerTo<{ data: unknown[] }>(page, /\/v1\/data\/crypto\/spot\/ohlcv\?/, () =>
    page.getByRole('button', { name: 'Show data' }).click(),
  );
  await page.getByRole('img', { name: /^Chart of OHLCV of BTC-USD, 1h bars/ }).waitFor();
  expect(await page.locator('svg.chart .candle').count()).toBe(series.data.length);
  await expect(page.getByTestId('answer-rows').locator('tbody tr').count()).resolves.toBe(series.data.length);
  expect(await page.locator('main').innerText()).not.toContain(key);
  await check(page, '10-data');
}
