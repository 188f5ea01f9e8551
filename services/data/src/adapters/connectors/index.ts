import { binanceFutures } from './binance-futures.js';
import { binanceSpot } from './binance-spot.js';
import { bitstampSpot } from './bitstamp-spot.js';
import { blockchainInfo } from './blockchain-info.js';
import { bybitFutures } from './bybit-futures.js';
import { bybitSpot } from './bybit-spot.js';
import { coinbaseSpot } from './coinbase-spot.js';
import type { ConnectorDefinition } from './connector.js';
import { deribit } from './deribit.js';
import { ecb } from './ecb.js';
import { eia } from './eia.js';
import { espn } from './espn.js';
import { farside } from './farside.js';
import { federalRegister } from './federal-register.js';
import { fiscalDataDebt, fiscalDataRates } from './fiscal-data.js';
import { fred, fredIndices } from './fred.js';
import { krakenSpot } from './kraken-spot.js';
import { lbma } from './lbma.js';
import { noaaSwpcKp, noaaSwpcSolarCycle } from './noaa-swpc.js';
import { noaaTides } from './noaa-tides.js';
import { nyc311 } from './nyc-311.js';
import { okxFutures } from './okx-futures.js';
import { okxSpot } from './okx-spot.js';
import { openMeteo, openMeteoColdest } from './open-meteo.js';
import { openNotify } from './open-notify.js';
import { pubmed } from './pubmed.js';
import { usgs } from './usgs.js';

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
