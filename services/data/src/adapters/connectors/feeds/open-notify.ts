import { recordedTime } from '../../../domain/replay-clock.js';
import { parseAstros } from '../../parsers/feeds/world.js';
import type { ConnectorDefinition } from '../connector.js';

/**
 * open-notify `astros.json` (plain HTTP only): who is in space, kept by hand by its author and
 * changed with crew rotations; it carries no time, so each answer is stamped with the poll's `now`.
 * Read once a day, the catalogue's cadence.
 */
export const openNotify: ConnectorDefinition = {
  name: 'open_notify',
  products: ['absurd_cosmos/off_world'],
  url: 'http://api.open-notify.org',
  cadenceMs: 24 * 3_600_000,
  note: 'open-notify.org states no licence; a hobby service, updated by hand (can lag a crew change)',
  open: (url) => async (http, now) => [
    parseAstros(await http.text(`${url}/astros.json`), now.toISOString(), recordedTime),
  ],
};
