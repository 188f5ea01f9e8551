import { binanceFutures } from './binance-futures.js';
import { blockchainInfo } from './blockchain-info.js';
import { bybitFutures } from './bybit-futures.js';
import type { ConnectorDefinition } from './connector.js';
import { espn } from './espn.js';
import { federalRegister } from './federal-register.js';
import { fiscalDataDebt, fiscalDataRates } from './fiscal-data.js';
import { noaaSwpcKp, noaaSwpcSolarCycle } from './noaa-swpc.js';
import { noaaTides } from './noaa-tides.js';
import { nyc311 } from './nyc-311.js';
import { openMeteo, openMeteoColdest } from './open-meteo.js';
import { openNotify } from './open-notify.js';
import { usgs } from './usgs.js';
import { ecb } from './ecb.js';
import { eia } from './eia.js';
import { farside } from './farside.js';
import { fred, fredIndices } from './fred.js';
import { lbma } from './lbma.js';
import { pubmed } from './pubmed.js';
import { deribit } from './deribit.js';
import { okxFutures } from './okx-futures.js';

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
];
