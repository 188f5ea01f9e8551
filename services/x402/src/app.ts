import { Router } from 'express';
import { buildServiceApp } from '@meridian/runtime';
import { SERVICE, type X402Deps } from './deps.js';

/** The routes of this service, behind the gateway's caller assertion. */
export function routes(_deps: X402Deps): Router {
  return Router();
}

/** The whole express app without listen(), for supertest. */
export function createApp(deps: X402Deps, ready: () => Promise<void> = async () => {}) {
  return buildServiceApp({ name: SERVICE, routes }, deps, ready);
}
