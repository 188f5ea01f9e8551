import { recordedTime } from '../../../domain/replay-clock.js';
import { parseSwpcKp, parseSwpcSunspots } from '../../parsers/feeds/world.js';
import type { ConnectorDefinition } from '../connector.js';

const SWPC = 'https://services.swpc.noaa.gov';

/**
 * SWPC `products/noaa-planetary-k-index.json`: the last week of 3-hourly Kp, the newest interval
 * added when it ends. Polled every 15 minutes so a new Kp lands soon after its publication (the
 * catalogue's 3 h, published 3 h after the interval starts). US government work, public domain.
 */
export const noaaSwpcKp: ConnectorDefinition = {
  name: 'noaa_swpc_kp',
  products: ['absurd_cosmos/space_weather'],
  url: SWPC,
  cadenceMs: 15 * 60_000,
  note: 'NOAA SWPC, US government work (public domain)',
  open: (url) => async (http) => [
    parseSwpcKp(await http.text(`${url}/products/noaa-planetary-k-index.json`), recordedTime),
  ],
};

/**
 * SWPC `json/solar-cycle/observed-solar-cycle-indices.json` (monthly means since 1749, the format
 * the replay records), read once a day: a month's value is published early the next month.
 * Chosen over SILSO's own files (semicolon text, SN_m_tot_V2.0.csv) because the replay's parser and
 * recording are this format and SWPC serves JSON. Its `ssn` is SILSO's International Sunspot
 * Number as republished by SWPC, and SILSO data is CC BY-NC 4.0 (see the note).
 */
export const noaaSwpcSolarCycle: ConnectorDefinition = {
  name: 'noaa_swpc_solar_cycle',
  products: ['absurd_cosmos/solar_cycle'],
  url: SWPC,
  cadenceMs: 24 * 3_600_000,
  note: "ssn is SILSO's International Sunspot Number (SIDC, Royal Observatory of Belgium, CC BY-NC 4.0: no commercial use without SIDC's agreement) republished by NOAA SWPC; SWPC's own count is kept as payload.observed_swpc_ssn",
  open: (url) => async (http) => [
    parseSwpcSunspots(
      await http.text(`${url}/json/solar-cycle/observed-solar-cycle-indices.json`),
      recordedTime,
    ),
  ],
};
