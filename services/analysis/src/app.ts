import { Router } from 'express';
import type { AnalysisDeps } from './deps.js';

/** The routes of this service, behind the gateway's caller assertion. */
export function routes(_deps: AnalysisDeps): Router {
  return Router();
}
