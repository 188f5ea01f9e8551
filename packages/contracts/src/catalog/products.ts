import type { ProductEntry } from './types.js';
import { CRYPTO } from './categories/crypto.js';
import { FX } from './categories/fx.js';
import { WEATHER } from './categories/weather.js';
import { SPORTS } from './categories/sports.js';
import { ABSURD_COSMOS } from './categories/absurd-cosmos.js';
import { ABSURD_CIVIC } from './categories/absurd-civic.js';
import { ABSURD_ECONOMY } from './categories/absurd-economy.js';
import { ABSURD_EARTH } from './categories/absurd-earth.js';
import { STOCKS } from './categories/stocks.js';
import { COMMODITIES } from './categories/commodities.js';
import { MACRO } from './categories/macro.js';
import { MEDICAL } from './categories/medical.js';

/**
 * The metric catalogue: the one source of truth for the data service's resolver, the gateway's
 * plan gate, the OpenAPI document, llms.txt, the x402 manifest and the agent tools
 * (data-api-interface 2.3, 4.2).
 */
export const CATALOG: readonly ProductEntry[] = [
  ...CRYPTO,
  ...FX,
  ...WEATHER,
  ...SPORTS,
  ...ABSURD_COSMOS,
  ...ABSURD_CIVIC,
  ...ABSURD_ECONOMY,
  ...ABSURD_EARTH,
  ...STOCKS,
  ...COMMODITIES,
  ...MACRO,
  ...MEDICAL,
];
