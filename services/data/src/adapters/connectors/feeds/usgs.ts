import { recordedTime } from '../../../domain/replay-clock.js';
import { parseUsgsFeed } from '../../parsers/feeds/world.js';
import type { ConnectorDefinition } from '../connector.js';

/**
 * USGS `summary/all_day.geojson`: every event of the last 24 h, regenerated every minute (the
 * catalogue's 60 s); the feed's `metadata.generated` bounds "the last hour". Public domain.
 */
export const usgs: ConnectorDefinition = {
  name: 'usgs',
  products: ['absurd_cosmos/restless_earth'],
  url: 'https://earthquake.usgs.gov',
  cadenceMs: 60_000,
  note: 'USGS, US government work (public domain)',
  open: (url) => async (http) => [
    parseUsgsFeed(await http.text(`${url}/earthquakes/feed/v1.0/summary/all_day.geojson`), recordedTime),
  ],
};
