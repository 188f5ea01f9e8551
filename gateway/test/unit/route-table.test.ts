import { describe, expect, it } from '@jest/globals';
import { accessOf, routeOwner } from '../../src/domain/route-table.js';
import { revokedKeyId } from '../../src/edge/key-revocation.js';

describe('route table', () => {
  it.each([
    ['/auth/login', 'identity'],
    ['/auth/oauth/idp/callback', 'identity'],
    ['/v1/account', 'identity'],
    ['/v1/account/2fa/enrol', 'identity'],
    ['/v1/account/links/0123456789abcdef0123456789abcdef', 'identity'],
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
    ['/v1/operator/accounts', 'identity'],
    ['/v1/operator/accounts/log', 'identity'],
    ['/v1/operator/billing/grants', 'billing'],
    ['/v1/operator/requests/log', 'requests'],
    ['/v1/operator/reviews/log', 'analysis'],
    ['/mcp', 'mcp'],
    ['/', 'portal'],
    ['/assets/app-3F2A9C.js', 'portal'],
    ['/assets/style-77B1E0.css', 'portal'],
  ])('%s belongs to %s', (path, service) => {
    expect(routeOwner(path)?.service).toBe(service);
  });

  it.each([
    '/v1/accounts',
    '/v1/account/other',
    '/v1/keysmith',
    '/nowhere',
    '/v1',
    '/index.html',
    '/assetsx/a.js',
  ])('%s has no owner', (path) => {
    expect(routeOwner(path)).toBeUndefined();
  });
});

describe('the web portal at the edge', () => {
  it('serves its page and its flat hashed files to anyone, and nothing deeper without a session', () => {
    expect(accessOf('/')).toBe('public');
    expect(accessOf('/assets/app-3F2A9C.js')).toBe('public');
    expect(accessOf('/assets/nested/app.js')).toBe('session');
  });
});

describe('the key a revocation names', () => {
  const id = '0c4f3d2e-8a7b-4c1d-9e2f-3a4b5c6d7e8f';

  it('reads the id as identity does: any case, without hyphens, in braces, with a trailing slash', () => {
    for (const path of [
      `/v1/keys/${id}/revoke`,
      `/v1/keys/${id.toUpperCase()}/REVOKE/`,
      `/v1/keys/${id.replaceAll('-', '')}/revoke`,
      `/v1/keys/%7B${id}%7D/revoke`,
    ])
      expect({ path, id: revokedKeyId(path) }).toEqual({ path, id });
    expect(revokedKeyId('/v1/keys')).toBeUndefined();
    expect(revokedKeyId('/v1/keys/not-a-uuid/revoke')).toBe('not-a-uuid');
  });
});
