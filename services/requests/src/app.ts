import { Router } from 'express';
import { buildServiceApp, type ServiceDeps } from '@meridian/runtime';
import type { Config } from './config.js';
import type { Database } from './db/database.js';

export const SERVICE = 'requests';

export type Deps = ServiceDeps<Database, Config>;

/** The routes of this service, behind the gateway's caller assertion. */
export function routes(_deps: Deps): Router {
  return Router();
}

/** The whole express app without listen(), for supertest. */
export function createApp(deps: Deps, ready: () => Promise<void> = async () => {}) {
  return buildServiceApp({ name: SERVICE, routes }, deps, ready);
}
