import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { parseConfig } from '../../src/config.js';

const ROOT = new URL('../../../../', import.meta.url);
const SECRET = { INTERNAL_AUTH_SECRET: 'x'.repeat(32) };

describe('data configuration', () => {
  it('reads no DATA_CONNECTOR_URL: nothing used it, so a value is ignored like any unknown variable', () => {
    const config = parseConfig({ ...SECRET, DATA_CONNECTOR_URL: 'not a url' });
    expect(Object.keys(config)).not.toContain('DATA_CONNECTOR_URL');
  });

  it('is not set by docker-compose.yml or deploy/', () => {
    for (const file of ['docker-compose.yml', 'deploy/k8s/configmap.yaml', 'deploy/k8s/data.yaml'])
      expect(readFileSync(new URL(file, ROOT), 'utf8')).not.toMatch(/^\s*#?\s*DATA_CONNECTOR_URL:/m);
  });

  it('hands the upstream keys to the live connectors, and names connectors by INGEST_CONNECTORS', () => {
    const { liveIngest } = parseConfig({
      ...SECRET,
      FRED_API_KEY: 'fred-key',
      EIA_API_KEY: 'eia-key',
      INGEST_CONNECTORS: 'farside, lbma',
      INGEST_URL_FRED_INDICES: 'http://127.0.0.1:9',
    });
    expect(liveIngest.keys).toMatchObject({ FRED_API_KEY: 'fred-key', EIA_API_KEY: 'eia-key' });
    expect(liveIngest.only).toEqual(['farside', 'lbma']);
    expect(liveIngest.urls).toEqual({ fred_indices: 'http://127.0.0.1:9' });
  });
});
