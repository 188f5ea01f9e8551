import { baseConfigSchema, loadConfig } from '@meridian/runtime';
import type { z } from 'zod';
import { platformConfig } from './config-platform.js';

export const configSchema = baseConfigSchema.extend({
  ...platformConfig,
});

export type Config = z.infer<typeof configSchema>;

export function parseConfig(env: Record<string, string | undefined>): Config {
  return loadConfig(configSchema, { PORT: '8083', ...env });
}
