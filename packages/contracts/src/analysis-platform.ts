import { z } from 'zod';
import { auditTierSchema } from './billing.js';

/**
 * Request bodies and queries of the analysis platform's routes (portal 4.3, 4.4 authorization);
 * the service parses with them and the gateway's OpenAPI document shows them. A domain is
 * normalised by the service (IDN to punycode; a clear 400 for anything but a bare hostname).
 */
const domain = z.string().min(1).max(300);

export const analysisDomainBodySchema = z.object({ domain }).strict();
export const analysisDomainQuerySchema = z.object({ domain });
export const analysisRunBodySchema = z
  .object({ domain, tier: auditTierSchema, payment: z.enum(['credit', 'deposit']).optional() })
  .strict();
export const auditAuthorizeBodySchema = z
  .object({
    domain,
    attestation: z
      .object({ owner: z.boolean(), name: z.string().max(200), statement: z.string().max(2000).optional() })
      .strict()
      .optional(),
    days: z.number().int().min(1).max(365).optional(),
    /** Path prefixes, host names (`*.example.com`) or URL prefixes on the domain. */
    scope: z.array(z.string().min(1).max(500)).max(50).optional(),
  })
  .strict();
export const analysisCredentialBodySchema = z
  .object({
    domain,
    kind: z.literal('form').default('form'),
    label: z.string().max(100).optional(),
    username: z.string().min(1).max(500),
    login_url: z
      .url({ protocol: /^https?$/ })
      .max(2000)
      .optional(),
    secret: z.string().min(1).max(4096),
  })
  .strict();
export const analysisCredentialsQuerySchema = z.object({ domain: domain.optional() });
export const analysisCredentialIdQuerySchema = z.object({ id: z.uuid() });
export const autoRescanBodySchema = z
  .object({ domain, enabled: z.boolean().optional(), tier: auditTierSchema.optional() })
  .strict();
