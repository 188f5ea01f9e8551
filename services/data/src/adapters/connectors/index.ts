import { binanceFutures } from './derivatives/binance-futures.js';
import { binanceSpot } from './spot/binance-spot.js';
import { bitstampSpot } from './spot/bitstamp-spot.js';
import { blockchainInfo } from './feeds/blockchain-info.js';
import { bybitFutures } from './derivatives/bybit-futures.js';
import { bybitSpot } from './spot/bybit-spot.js';
import { coinbaseSpot } from './spot/coinbase-spot.js';
import type { ConnectorDefinition } from './connector.js';
import { deribit } from './derivatives/deribit.js';
import { ecb } from './feeds/ecb.js';
import { eia } from './feeds/eia.js';
import { espn } from './feeds/espn.js';
import { farside } from './feeds/farside.js';
import { federalRegister } from './feeds/federal-register.js';
import { fiscalDataDebt, fiscalDataRates } from './feeds/fiscal-data.js';
import { fred, fredIndices } from './feeds/fred.js';
import { krakenSpot } from './spot/kraken-spot.js';
import { lbma } from './feeds/lbma.js';
import { noaaSwpcKp, noaaSwpcSolarCycle } from './feeds/noaa-swpc.js';
import { noaaTides } from './feeds/noaa-tides.js';
import { nyc311 } from './feeds/nyc-311.js';
import { okxFutures } from './derivatives/okx-futures.js';
import { okxSpot } from './spot/okx-spot.js';
import { openMeteo, openMeteoColdest } from './feeds/open-meteo.js';
import { openNotify } from './feeds/open-notify.js';
import { pubmed } from './feeds/pubmed.js';
import { usgs } from './feeds/usgs.js';

/** Every live upstream (INGEST_MODE=live), one module each; see README "Live connectors". */
export const CONNECTORS: readonly ConnectorDefinition[] = [
  blockchainInfo,
  openMeteo,
  openMeteoColdest,
  espn,
  noaaSwpcKp,
  noaaSwpcSolarCycle,
  usgs,
  openNotify,
  federalRegister,
  nyc311,
  fiscalDataDebt,
  fiscalDataRates,
  noaaTides,
  farside,
  ecb,
  fredIndices,
  eia,
  lbma,
  fred,
  pubmed,
  deribit,
  binanceFutures,
  bybitFutures,
  okxFutures,
  binanceSpot,
  coinbaseSpot,
  krakenSpot,
  okxSpot,
  bybitSpot,
  bitstampSpot,
];
