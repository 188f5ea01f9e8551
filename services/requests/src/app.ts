import { Router } from 'express';
import type { RequestsDeps } from './deps.js';

/** The routes of this service, behind the gateway's caller assertion. */
export function routes(_deps: RequestsDeps): Router {
  return Router();
}
