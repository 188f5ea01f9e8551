import { Router } from 'express';
import { buildServiceApp } from '@meridian/runtime';
import { SERVICE, type RequestsDeps } from './deps.js';

/** The routes of this service, behind the gateway's caller assertion. */
export function routes(_deps: RequestsDeps): Router {
  return Router();
}

/** The whole express app without listen(), for supertest. */
export function createApp(deps: RequestsDeps, ready: () => Promise<void> = async () => {}) {
  return buildServiceApp({ name: SERVICE, routes }, deps, ready);
}
