import { expect } from '@jest/globals';
import type { Page } from 'playwright-core';
import { answerTo } from './browser-checks.js';

/**
 * Steps of the data explorer's browser test (tests-e2e/data-explorer.test.ts) on a signed-in page:
 * a metric picked by name, its answer read, its chart checked.
 */

export interface Envelope {
  data: Array<Record<string, unknown>>;
  meta: {
    has_more?: boolean;
    next_cursor?: string | null;
    venues: string[];
    replay?: { recorded_at: string };
  };
  provenance: { method: string };
}

interface CatalogMetric {
  metric: string;
  unit: string;
  cadence: string;
  min_tier: string;
  description: string;
}

/** The catalogue's entry of crypto/spot and of its ohlcv metric, as the page reads it. */
export async function spotEntry(page: Page): Promise<{ entities: string[]; ohlcv: CatalogMetric }> {
  return page.evaluate(async () => {
    const body = (await (await fetch('/v1/catalog')).json()) as {
      data: {
        categories: Array<{
          category: string;
          products: Array<{ product: string; entities: string[]; metrics: CatalogMetric[] }>;
        }>;
      };
    };
    const spot = body.data.categories
      .find((c) => c.category === 'crypto')!
      .products.find((p) => p.product === 'spot')!;
    return { entities: spot.entities, ohlcv: spot.metrics.find((m) => m.metric === 'ohlcv')! };
  });
}

/** Picks crypto, spot, a metric by their names; the page shows nothing as a URL path. */
export async function pickSpot(page: Page, metric: string): Promise<void> {
  await page.getByLabel('Category').selectOption({ label: 'Crypto' });
  await page.getByLabel('Product').selectOption({ label: 'Spot' });
  await page.getByLabel('Metric').selectOption(metric);
}

/** Reads the question the form holds: the answer the page received. */
export function show(page: Page, path: RegExp): Promise<Envelope> {
  return answerTo<Envelope>(page, path, () => page.getByRole('button', { name: 'Show data' }).click());
}

/** The chart is drawn at its box's width, with axes, ticks, the unit and one candle per bar. */
export async function expectChartAtBoxSize(page: Page, bars: number, unit: string): Promise<void> {
  const svg = page.locator('svg.chart');
  await svg.waitFor();
  const sizes = await page.getByTestId('chart').evaluate((box) => ({
    box: box.clientWidth,
    drawn: Number(box.querySelector('svg')!.getAttribute('width')),
    shown: box.querySelector('svg')!.getBoundingClientRect().width,
  }));
  expect(sizes.drawn).toBe(sizes.box);
  expect(Math.abs(sizes.shown - sizes.box)).toBeLessThanOrEqual(1);
  expect(await svg.locator('.axes text:not(.unit)').count()).toBeGreaterThanOrEqual(4);
  await expect(svg.locator('text.unit').textContent()).resolves.toBe(unit);
  expect(await svg.locator('.candle').count()).toBe(bars);
}

/** Hovering the chart's middle (scrolled into view: a pointer reaches only what is shown) reads out a time and the bar's values in the unit. */
export async function expectHoverReadout(page: Page, unit: string): Promise<void> {
  await page.locator('svg.chart').scrollIntoViewIfNeeded();
  const box = (await page.locator('svg.chart').boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5);
  const readout = page.getByTestId('chart-readout');
  await expect(readout.textContent()).resolves.toMatch(
    new RegExp(`\\d{1,2}:\\d{2}.* — open [\\d,.]+, high [\\d,.]+, low [\\d,.]+, close [\\d,.]+ ${unit}$`),
  );
  const before = await readout.textContent();
  await page.mouse.move(box.x + box.width * 0.9, box.y + box.height * 0.5);
  await expect(readout.textContent()).resolves.not.toBe(before);
}
