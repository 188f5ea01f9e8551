import type { Logger, Metrics } from '@meridian/observability';
import type { Assets } from './bundle.js';
import type { Config } from './config.js';

export const SERVICE = 'portal';

/** What main.ts builds once and the app serves. */
export interface Deps {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  assets: Assets;
}
