import type { ServiceDeps } from '@meridian/runtime';
import type { Config } from './config.js';
import type { Database } from './db/database.js';

/** What every part of this service gets: the chassis' deps (no parts of its own yet). */
export type AnalysisDeps = ServiceDeps<Database, Config>;

export const SERVICE = 'analysis';
