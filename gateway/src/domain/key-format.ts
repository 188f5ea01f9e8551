import { parseApiKey } from '@meridian/contracts';

export { looksLikeApiKey } from '@meridian/contracts';

/**
 * A string that fails identity's key format (packages/contracts/src/api-key.ts) is refused at the
 * edge with no request to identity, so a flood of random keys costs identity nothing; only keys
 * that pass the checksum can reach it, and those are remembered either way.
 */
export function keyFormatValid(key: string): boolean {
  return parseApiKey(key) !== undefined;
}
