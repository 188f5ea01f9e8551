import { describe, expect, it } from '@jest/globals';
import { routeOwner } from '../../src/domain/route-table.js';

describe('route table', () => {
  it.each([
    ['/auth/login', 'identity'],
    ['/auth/oauth/idp/callback', 'identity'],
    ['/v1/account', 'identity'],
    ['/v1/account/2fa/enrol', 'identity'],
    ['/v1/keys/k_1/revoke', 'identity'],
    ['/v1/agent/whoami', 'identity'],
    ['/v1/account/billing/history', 'billing'],
    ['/v1/credits', 'billing'],
    ['/v1/billing/prices', 'billing'],
    ['/v1/audit/subscribe', 'billing'],
    ['/v1/audit/authorize', 'analysis'],
    ['/v1/audit/authorization/revoke', 'analysis'],
    ['/v1/analysis/report/r1/pdf', 'analysis'],
    ['/v1/data/crypto/spot/reference_price', 'data'],
    ['/v1/demo', 'data'],
    ['/v1/catalog', 'data'],
    ['/v1/requests', 'requests'],
    ['/v1/consulting/slots', 'requests'],
  ])('%s belongs to %s', (path, service) => {
    expect(routeOwner(path)?.service).toBe(service);
  });

  it.each(['/v1/accounts', '/v1/account/other', '/v1/keysmith', '/nowhere', '/v1'])(
    '%s has no owner',
    (path) => {
      expect(routeOwner(path)).toBeUndefined();
    },
  );
});
