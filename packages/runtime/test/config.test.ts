import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { baseConfigSchema, loadConfig } from '../src/config.js';

const schema = baseConfigSchema.extend({ DEPOSIT_ADDRESS: z.string().min(32).optional() });
const SECRET = 'x'.repeat(32);

describe('loadConfig', () => {
  it('takes an empty variable as unset, as docker-compose passes a listed key without a value', () => {
    const config = loadConfig(
      schema,
      { INTERNAL_AUTH_SECRET: SECRET, DATABASE_URL: '', DEPOSIT_ADDRESS: '', PORT: '' },
      { PORT: '8082' },
    );
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.DEPOSIT_ADDRESS).toBeUndefined();
    expect(config.PORT).toBe(8082);
  });

  it('lets the environment win over the defaults, and names every bad key', () => {
    expect(loadConfig(schema, { INTERNAL_AUTH_SECRET: SECRET, PORT: '9000' }, { PORT: '8082' }).PORT).toBe(
      9000,
    );
    expect(() =>
      loadConfig(schema, { INTERNAL_AUTH_SECRET: 'short', DATABASE_URL: 'nope', PORT: '1' }),
    ).toThrow(/DATABASE_URL: Invalid URL\n {2}INTERNAL_AUTH_SECRET: must be at least 32 characters/);
  });
});
