import { expect } from '@jest/globals';
import type { Page } from 'playwright-core';
import { check } from './browser-checks.js';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

export interface ConsolePeople {
  owner: { email: string };
  /** The operator as the console names them: email and nickname. */
  operatorName: string;
}

/**
 * A grant from the console's money section: typed by email, stated in dollars with the account's
 * email before it posts, and posted once confirmed. `balance` reads the owner's balance.
 */
export async function grantWithConfirmation(
  page: Page,
  people: ConsolePeople,
  balance: () => Promise<number>,
): Promise<void> {
  const before = await balance();
  // The log's and the grants' filters have fields of the same names: the money form's own.
  const credit = page.locator('form', { has: page.getByRole('button', { name: 'Review', exact: true }) });
  await credit.getByLabel('Action').selectOption('grant');
  await credit.getByLabel('Account (email)', { exact: true }).fill(people.owner.email);
  await credit.getByLabel(/^Amount in USD/).fill('1.50');
  await credit.getByLabel('Reason', { exact: true }).fill('goodwill for the wait');
  await credit.getByRole('button', { name: 'Review', exact: true }).click();
  const confirm = page.getByTestId('credit-confirm');
  await confirm.getByText(`Grant $1.50 of credit to ${people.owner.email}?`).waitFor();
  expect(await balance()).toBe(before);
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await confirm.waitFor({ state: 'detached' });
  expect(await balance()).toBe(before);
  await credit.getByRole('button', { name: 'Review', exact: true }).click();
  await confirm.getByRole('button', { name: 'Confirm grant' }).click();
  await confirm.getByText(`Done: the balance of ${people.owner.email} is now`).waitFor();
  expect(await balance()).toBe(before + 1_500_000);
}

/**
 * The log and the grants name people, never ids; their filters narrow them; both are checked by
 * axe at desktop width and at 390 px, where their tables scroll within their box.
 */
export async function logAndGrants(page: Page, people: ConsolePeople): Promise<void> {
  const log = page.getByTestId('operator-log');
  const grants = page.getByTestId('grants');
  // The console's grant (the run's credit was granted by the same operator, with billing:admin).
  const grantRow = log.locator('tr', { hasText: 'goodwill' });
  await grantRow.waitFor();
  expect(await grantRow.innerText()).toMatch(
    new RegExp(
      `${escaped(people.operatorName)}\\s+granted credit\\s+${escaped(people.owner.email)}\\s+\\$1\\.50: goodwill`,
    ),
  );
  await log
    .locator('tr', { hasText: 'gave the operator role' })
    .getByText('command line (bootstrap)')
    .waitFor();
  await grants.locator('tr', { hasText: people.owner.email }).getByText('+$1.50').waitFor();
  // Nothing in the console shows an account id.
  expect(await page.locator('main').innerText()).not.toMatch(UUID);

  const logFilter = page.locator('form', { has: page.getByRole('button', { name: 'Show log' }) });
  await logFilter.getByLabel('Action').selectOption('operator');
  await logFilter.getByRole('button', { name: 'Show log' }).click();
  await log.locator('tr', { hasText: 'granted credit' }).first().waitFor({ state: 'detached' });
  expect(await log.locator('tbody tr').count()).toBe(1);
  const grantFilter = page.locator('form', { has: page.getByRole('button', { name: 'Show grants' }) });
  await grantFilter.getByLabel('Account (email)').fill('nobody@example.com');
  await grantFilter.getByRole('button', { name: 'Show grants' }).click();
  await grantFilter.getByText('No account has the email nobody@example.com.').waitFor();
  await grantFilter.getByLabel('Account (email)').fill(people.owner.email);
  await grantFilter.getByLabel('From (day)').fill('2000-01-01');
  await grantFilter.getByRole('button', { name: 'Show grants' }).click();
  await grants.locator('tbody tr').first().waitFor();
  // The owner's: the console's grant and the credit billing:admin granted for the run.
  expect(await grants.locator('tbody tr').allInnerTexts()).toEqual([
    expect.stringContaining('+$1.50'),
    expect.stringContaining('+$200.00'),
  ]);
  await check(page, 'operator-03-log');
  await page.locator('section', { has: page.getByRole('heading', { name: 'Operator log' }) }).screenshot({
    path: 'artifacts/screenshots/operator-03-log-section.png',
  });

  await page.setViewportSize({ width: 390, height: 844 });
  for (const table of [log.locator('table'), grants.locator('table')]) {
    const box = await table.evaluate((t) => {
      t.scrollLeft = t.scrollWidth;
      const last = t.querySelector('thead th:last-child')!.getBoundingClientRect();
      const own = t.getBoundingClientRect();
      return { own: own.right, last: last.right, page: t.ownerDocument.documentElement.scrollWidth };
    });
    expect(box.page).toBeLessThanOrEqual(390);
    expect(box.last).toBeLessThanOrEqual(box.own + 1);
  }
  await check(page, 'operator-05-console-phone');
}

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
