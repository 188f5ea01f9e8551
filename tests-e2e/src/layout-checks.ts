import { expect } from '@jest/globals';
import type { Page } from 'playwright-core';

/** What a page's layout does at its viewport: how it overflows, and how far each table reaches. */
interface Layout {
  viewport: number;
  pageWidth: number;
  tables: Array<{ right: number; lastColumnReachable: boolean }>;
}

/** Measured in the page (a script of its own: the tests' compiler knows no DOM). */
const MEASURE = `(() => {
  const viewport = document.documentElement.clientWidth;
  const tables = [...document.querySelectorAll('main table')].map((table) => {
    table.scrollLeft = table.scrollWidth;
    const box = table.getBoundingClientRect();
    const cells = table.querySelectorAll('tr:first-child > *');
    const last = cells[cells.length - 1]?.getBoundingClientRect();
    const reachable = !last || (last.right <= box.right + 1 && last.left >= box.left - 1);
    table.scrollLeft = 0;
    return { right: Math.round(box.right), lastColumnReachable: reachable };
  });
  return { viewport, pageWidth: document.documentElement.scrollWidth, tables };
})()`;

/**
 * Nothing of the page sticks out of the viewport sideways, and every table stays within it with
 * its last column reachable: scrolled to its end, the table's last header cell lies inside the
 * table's own box (a table that fits needs no scrolling).
 */
export async function expectNoSidewaysOverflow(page: Page, name: string): Promise<void> {
  const layout = (await page.evaluate(MEASURE)) as Layout;
  expect({ page: name, pageWidth: Math.min(layout.pageWidth, layout.viewport) }).toEqual({
    page: name,
    pageWidth: layout.pageWidth,
  });
  for (const table of layout.tables) {
    expect({ page: name, ...table }).toEqual({
      page: name,
      right: Math.min(table.right, layout.viewport),
      lastColumnReachable: true,
    });
  }
}

/** The visible text of the page's main part holds no atomic amount, no HTTP title and no raw code. */
export async function expectPlainWords(page: Page, name: string): Promise<void> {
  // An email address may hold long numbers (the tests' own do): it is no amount.
  const text = (await page.locator('main').innerText()).replace(/\S+@\S+/g, '');
  const raw = [
    /atomic/i,
    /(?<![-\w])\d{7,}(?![-\w])/,
    /^(Unauthorized|Forbidden|Invalid input|Insufficient credit|Not found|Conflict)\b/m,
    /\b(awaiting_payment|audit_base|audit_secure|audit_review|data_plan|admin_grant|topup_usdc)\b/,
  ].filter((pattern) => pattern.test(text));
  expect({ page: name, raw: raw.map(String) }).toEqual({ page: name, raw: [] });
}
