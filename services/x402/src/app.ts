import { Router } from 'express';
import type { X402Deps } from './deps.js';

/** The routes of this service, behind the gateway's caller assertion. */
export function routes(_deps: X402Deps): Router {
  return Router();
}
