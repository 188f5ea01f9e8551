import { ScanRefused } from '../../adapters/scanner/http.js';
import { probeTls } from '../../adapters/scanner/tls.js';
import { fail } from '../../domain/checks/finding.js';
import { tlsChecks } from '../../domain/checks/tls.js';
import { describe, type Stage } from './context.js';

/**
 * Protocol versions and the certificate on the HTTPS port. A site that completes no handshake
 * there has no TLS to judge: that is what the stage found (the http stage's missing-HTTPS finding
 * carries the points), not a stage that could not run.
 */
export const tlsStage: Stage = {
  name: 'tls',
  async run(ctx) {
    try {
      return tlsChecks(await probeTls(ctx.options, ctx.domain), ctx.now());
    } catch (err) {
      if (err instanceof ScanRefused) throw err;
      return [
        fail(
          'tls.unavailable',
          'tls',
          'No TLS handshake on the HTTPS port',
          'info',
          describe(err),
          `Serve ${ctx.domain} over HTTPS with a certificate for its name.`,
        ),
      ];
    }
  },
};
