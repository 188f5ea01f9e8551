import { headerChecks } from '../../domain/checks/http.js';
import type { Stage } from './context.js';

/** The security headers of the home page (https preferred). */
export const headersStage: Stage = {
  name: 'headers',
  run: async (ctx) => headerChecks(ctx.page!),
};
