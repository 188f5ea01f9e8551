/**
 * Key pairs the local chain's deployment keeps under DATA_DIR (the deposit wallet, the
 * facilitator's fee payer): made once, read on every later start, so the addresses people and
 * services were given stay the addresses. Made with node's crypto, so the all-in-one that calls
 * this loads no Solana library; the secret stays in the file (mode 600).
 */
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import bs58 from 'bs58';
import { z } from 'zod';

const keptSchema = z.object({ address: z.string().min(32), secret_key: z.string().min(64) });

/** The key pair kept in `dataDir/fileName`, made now if there is none: its address and its file. */
export function keptKeyPair(dataDir: string, fileName: string): { address: string; file: string } {
  const file = join(dataDir, fileName);
  if (existsSync(file)) return { address: readKept(file).address, file };
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const pub = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  const seed = Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url');
  // A Solana secret key is the 32-byte seed followed by the public key, base58 as wallets export it.
  const kept = { address: bs58.encode(pub), secret_key: bs58.encode(Buffer.concat([seed, pub])) };
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, `${JSON.stringify(kept)}\n`, { mode: 0o600, flag: 'wx' });
  return { address: kept.address, file };
}

/** The kept key pair of `file`: its address and the 64 bytes of its secret key. */
export function readKept(file: string): { address: string; secretKey: Uint8Array } {
  const kept = keptSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  return { address: kept.address, secretKey: bs58.decode(kept.secret_key) };
}
