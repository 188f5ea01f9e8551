import { mkdir } from 'node:fs/promises';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { SESSION_COOKIE } from '@meridian/contracts';
import { startSmtp } from '@meridian/test-peers';
import { signedInAccount, type SignedIn } from './src/accounts.js';
import { SCREENSHOTS, answerTo, check } from './src/browser-checks.js';
import {
  expectChartAtBoxSize,
  expectHoverReadout,
  pickSpot,
  show,
  spotEntry,
} from './src/explorer-checks.js';
import { replayLoaded, startSystem, type System } from './src/system.js';
import { describeWithBrowser, launchBrowser } from './src/browser.js';

const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;
/** The chart's box as the page sees it (this file has no DOM types). */
interface ChartBox {
  clientWidth: number;
  querySelector(s: string): { getAttribute(name: string): string | null };
}
const OHLCV = /\/v1\/data\/crypto\/spot\/ohlcv\?/;

/**
 * The data explorer in Chromium, desktop and a 390-px phone, against the whole system
 * replaying its recordings: a metric picked by name from the catalogue and read with the session
 * alone, the answer as rows paged with the cursor, its meta, provenance and replay notice in words,
 * refusals in words, the raw JSON whole with a copy button and curl; the chart at its box's size
 * with axes, unit, candles, a hover readout, a redraw on resize and venues side by side.
 */
describeWithBrowser('the data explorer in a real browser', () => {
  let system: System;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let browser: Browser;
  let base: string;
  const accounts = new Map<string, SignedIn>();

  beforeAll(async () => {
    await mkdir(SCREENSHOTS, { recursive: true });
    smtp = await startSmtp();
    system = await startSystem('e2e_explorer', { SMTP_URL: smtp.url });
    base = `http://localhost:${new URL(system.gatewayUrl).port}`;
    browser = await launchBrowser();
    await replayLoaded(system, '/v1/data/crypto/spot/ohlcv?entity=BTC-USD');
    // One free account per viewport and one to spend: 10 data calls a minute each.
    for (const name of [...VIEWPORTS.map((v) => v.name), 'spent'])
      accounts.set(name, await signedInAccount(system, smtp, `explorer-${name}`));
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
    await smtp?.close();
  });

  const open = async (
    account: string,
    viewport: { width: number; height: number },
  ): Promise<[BrowserContext, Page]> => {
    const context = await browser.newContext({ viewport });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    await context.addCookies([{ name: SESSION_COOKIE, value: accounts.get(account)!.session, url: base }]);
    const page = await context.newPage();
    await page.goto(`${base}/#/data`);
    await page.getByLabel('Metric').waitFor();
    return [context, page];
  };

  for (const viewport of VIEWPORTS) {
    it(`${viewport.name}: picks a metric by name, reads it with the session, pages the rows, says meta, provenance and replay in words, refuses in words, shows the raw JSON whole and curl`, async () => {
      const [context, page] = await open(viewport.name, viewport);
      expect(await page.locator('input[type="password"]').count()).toBe(0);
      const { entities, ohlcv } = await spotEntry(page);
      await pickSpot(page, 'ohlcv');
      const card = page.getByTestId('metric-card');
      await expect(card.textContent()).resolves.toContain(ohlcv.description);
      for (const fact of [ohlcv.unit, ohlcv.cadence, ohlcv.min_tier])
        await expect(card.textContent()).resolves.toContain(fact);
      expect(await page.getByLabel('Entity').locator('option').allTextContents()).toEqual(entities);
      expect(await page.getByLabel('Metric').locator('option').allTextContents()).not.toContainEqual(
        expect.stringContaining('/v1/'),
      );

      const first = await show(page, OHLCV);
      const rows = page.getByTestId('answer-rows').locator('tbody tr');
      await expect(rows.count()).resolves.toBe(first.data.length);
      const recorded = await page.evaluate(
        (iso) => new Date(iso).toLocaleDateString(undefined, { dateStyle: 'long' }),
        first.meta.replay!.recorded_at,
      );
      await expect(page.getByTestId('replay-notice').textContent()).resolves.toContain(recorded);
      await expect(page.getByTestId('answer-meta').textContent()).resolves.toContain(
        `Venues: ${first.meta.venues.join(', ')}.`,
      );
      await expect(page.getByTestId('method').textContent()).resolves.toContain(first.provenance.method);

      // All rows: the next page through meta.next_cursor, added to the table.
      expect(first.meta.has_more).toBe(true);
      const [request] = await Promise.all([
        page.waitForRequest((r) => OHLCV.test(r.url())),
        page.getByRole('button', { name: /Load more/ }).click(),
      ]);
      const second = (await (await request.response())!.json()) as typeof first;
      expect(new URL(request.url()).searchParams.get('cursor')).toBe(first.meta.next_cursor);
      await page
        .getByTestId('answer-rows')
        .locator(`tbody tr:nth-child(${first.data.length + second.data.length})`)
        .waitFor({ state: 'attached' });
      await expect(rows.count()).resolves.toBe(first.data.length + second.data.length);

      // The raw JSON behind a toggle, whole, copied as it is; curl with a placeholder for the key.
      const raw = page.getByTestId('raw-json');
      await expect(raw.isVisible()).resolves.toBe(false);
      await page.getByText(/^Raw JSON/).click();
      expect(JSON.parse((await raw.textContent())!)).toEqual([first, second]);
      await page.getByRole('button', { name: 'Copy JSON' }).click();
      await page.getByText('Copied.').first().waitFor();
      expect(
        JSON.parse(
          await page.evaluate(() =>
            (navigator as unknown as { clipboard: { readText(): Promise<string> } }).clipboard.readText(),
          ),
        ),
      ).toEqual([first, second]);
      await expect(page.getByTestId('curl').textContent()).resolves.toBe(
        `curl -H "Authorization: Bearer $MERIDIAN_API_KEY" '${base}/v1/data/crypto/spot/ohlcv?entity=BTC-USD&interval=1m'`,
      );
      await check(page, `explorer-${viewport.name}`);

      // A metric above the account's plan: which plan it needs, in words.
      await page.getByLabel('Product').selectOption({ label: 'Options' });
      await expect(page.getByTestId('min-plan').textContent()).resolves.toBe('pro');
      await page.getByRole('button', { name: 'Show data' }).click();
      await expect(page.getByTestId('refusal').textContent()).resolves.toBe(
        'Chain needs the pro plan; your account is on free. Change your plan on the Account page; asking again will not help.',
      );
      await check(page, `explorer-refused-${viewport.name}`);
      await context.close();
    }, 120_000);

    it(`${viewport.name}: draws OHLCV as candles at the box's size with axes and unit, reads out on hover, redraws on resize, and tells venues apart`, async () => {
      const [context, page] = await open(viewport.name, viewport);
      await pickSpot(page, 'ohlcv');
      await page.getByLabel('Bar interval').selectOption('1h');
      const bars = await show(page, OHLCV);
      await expectChartAtBoxSize(page, bars.data.length, 'USD');
      await expectHoverReadout(page, 'USD');
      await check(page, `chart-${viewport.name}`);

      await page.setViewportSize({ width: viewport.width - 60, height: viewport.height });
      await page.waitForFunction(() => {
        const box = (
          globalThis as unknown as { document: { querySelector(s: string): ChartBox } }
        ).document.querySelector('[data-testid="chart"]');
        return Number(box.querySelector('svg').getAttribute('width')) === box.clientWidth;
      });
      await expectChartAtBoxSize(page, bars.data.length, 'USD');

      // BTC-USDC, which two venues list, one series each, told apart by a legend.
      await page.getByLabel('Entity').selectOption('BTC-USDC');
      await page.getByLabel('Venue').selectOption({ label: 'Each venue, side by side' });
      await Promise.all([
        answerTo(page, /source=binanceus/, async () => {}),
        answerTo(page, /source=kraken/, async () => {}),
        page.getByRole('button', { name: 'Show data' }).click(),
      ]);
      await page.getByTestId('chart-legend').waitFor();
      expect(await page.getByTestId('chart-legend').locator('li').allTextContents()).toEqual([
        'binanceus',
        'kraken',
      ]);
      expect(await page.locator('svg.chart g.series').count()).toBe(2);
      expect(await page.locator('svg.chart path.stroke').count()).toBe(2);
      await check(page, `chart-venues-${viewport.name}`);
      await context.close();
    }, 120_000);
  }

  it('says when to retry once the plan’s requests of the minute are spent', async () => {
    const [context, page] = await open('spent', VIEWPORTS[1]);
    await pickSpot(page, 'reference_price');
    const statuses = await page.evaluate(async () => {
      const out: number[] = [];
      for (let i = 0; i < 12; i++)
        out.push((await fetch('/v1/data/crypto/spot/reference_price?entity=BTC-USD')).status);
      return out;
    });
    expect(statuses).toContain(429);
    // A token comes back every 6 s on the free plan: read until the page is refused again.
    const statusesSeen: number[] = [];
    while (!statusesSeen.includes(429) && statusesSeen.length < 10) {
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.url().includes('/v1/data/crypto/spot/reference_price')),
        page.getByRole('button', { name: 'Show data' }).click(),
      ]);
      statusesSeen.push(response.status());
    }
    expect(statusesSeen).toContain(429);
    await expect(page.getByTestId('refusal').textContent()).resolves.toMatch(
      /^Too many requests for your plan’s limit per minute\. Try again in \d+ seconds? \(at .+\)\.$/,
    );
    await check(page, 'explorer-rate-limited');
    await context.close();
  }, 60_000);
});
