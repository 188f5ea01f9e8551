import { describe, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { CHROMIUM_PATH, hasChromium, launchChromium } from '@meridian/test-peers';

const present = hasChromium();

/**
 * `describe` for tests in a real browser: skipped on a machine without Chromium, saying so on
 * stderr, so that a run without it says what it did not check.
 */
export function describeWithBrowser(what: string, tests: () => void): void {
  if (!present) console.error(`${what}: skipped, no browser at ${CHROMIUM_PATH} (apt-get install chromium)`);
  (present ? describe : describe.skip)(what, tests);
}

/** `it` for one test in a real browser among others that need none: skipped without Chromium. */
export const itWithBrowser = present ? it : it.skip;

/**
 * The one browser setup of the e2e tests: Chromium headless, off the internet (launchChromium's
 * flags), with `localhost` resolved to loopback so that pages are opened at the portal's own origin.
 */
export function launchBrowser(): Promise<Browser> {
  return launchChromium(['--host-resolver-rules=MAP localhost 127.0.0.1']);
}
