import { baseConfigSchema, loadConfig } from '@meridian/runtime';
import type { z } from 'zod';

export const configSchema = baseConfigSchema.extend({});

export type Config = z.infer<typeof configSchema>;

export function parseConfig(env: Record<string, string | undefined>): Config {
  return loadConfig(configSchema, { PORT: '8086', ...env });
}
