import { baseConfigSchema, loadConfig } from '@meridian/runtime';
import { z } from 'zod';
import { platformConfig } from './config-platform.js';

export const configSchema = baseConfigSchema.extend({
  ...platformConfig,
  /** Public address of the platform: share links are minted under it. */
  PUBLIC_BASE_URL: z.string().url().default('http://localhost:8080'),
});

export type Config = z.infer<typeof configSchema>;

export function parseConfig(env: Record<string, string | undefined>): Config {
  return loadConfig(configSchema, { PORT: '8083', ...env });
}
