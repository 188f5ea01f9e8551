/**
 * The Solana JSON-RPC methods a wallet, x402's signer and our services call, answered from the
 * local chain as a node answers them (parameters checked, errors with a node's codes).
 */
import { PublicKey, VersionedMessage, VersionedTransaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { BLOCKHASH_VALID_SLOTS, LAMPORTS_PER_SIGNATURE, type Landed, type LocalChain } from './chain.js';
import type { Dispatch } from './json-rpc.js';
import { RpcError, invalidParams, uiAmount } from './transaction-meta.js';

type Config = Record<string, unknown>;

function configOf(params: unknown[], at: number): Config {
  const value = params[at];
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw invalidParams(`parameter ${at} is not an object`);
  return value as Config;
}

function pubkeyOf(params: unknown[], at: number): PublicKey {
  const value = params[at];
  if (typeof value !== 'string') throw invalidParams(`parameter ${at} must be a base58 address`);
  try {
    return new PublicKey(value);
  } catch {
    throw invalidParams(`invalid address ${value}`);
  }
}

function signatureOf(value: unknown, what: string): string {
  if (typeof value !== 'string') throw invalidParams(`${what} must be a base58 signature`);
  let bytes: Uint8Array;
  try {
    bytes = bs58.decode(value);
  } catch {
    throw invalidParams(`invalid ${what}`);
  }
  if (bytes.length !== 64) throw invalidParams(`invalid ${what}`);
  return value;
}

/** At least `confirmed`, as a node requires of history queries; everything here is finalized. */
function checkCommitment(config: Config, historyQuery: boolean): void {
  const commitment = config.commitment;
  if (commitment === undefined) return;
  if (!['processed', 'confirmed', 'finalized'].includes(commitment as string))
    throw invalidParams(`unknown commitment ${String(commitment)}`);
  if (historyQuery && commitment === 'processed')
    throw invalidParams('Method does not support commitment below `confirmed`');
}

function bytesOf(params: unknown[], config: Config): Uint8Array {
  const value = params[0];
  if (typeof value !== 'string') throw invalidParams('expected an encoded transaction');
  const encoding = config.encoding ?? 'base58';
  if (encoding === 'base64') return Uint8Array.from(Buffer.from(value, 'base64'));
  if (encoding === 'base58') return bs58.decode(value);
  throw invalidParams(`unsupported encoding ${String(encoding)}`);
}

export function decodeTransaction(wire: Uint8Array): Uint8Array {
  try {
    VersionedTransaction.deserialize(wire);
  } catch (err) {
    throw invalidParams(`failed to deserialize transaction: ${String(err)}`);
  }
  return wire;
}

const context = (chain: LocalChain) => ({ slot: chain.currentSlot, apiVersion: '2.2.0' });

function memoField(memos: string[]): string | null {
  return memos.length === 0 ? null : memos.map((memo) => `[${Buffer.byteLength(memo)}] ${memo}`).join('; ');
}

function transactionJson(landed: Landed) {
  const message = landed.transaction.message;
  return {
    signatures: landed.transaction.signatures.map((sig) => bs58.encode(sig)),
    message: {
      accountKeys: landed.accountKeys,
      header: message.header,
      recentBlockhash: message.recentBlockhash,
      instructions: message.compiledInstructions.map((ix) => ({
        programIdIndex: ix.programIdIndex,
        accounts: ix.accountKeyIndexes,
        data: bs58.encode(ix.data),
        stackHeight: null,
      })),
      ...(message.version === 0 ? { addressTableLookups: [] } : {}),
    },
  };
}

function accountJson(chain: LocalChain, key: PublicKey, config: Config) {
  const info = chain.svm.getAccount(key);
  if (!info) return null;
  const encoding = config.encoding ?? 'base64';
  const data = Buffer.from(info.data);
  let encoded: [string, string];
  if (encoding === 'base64') encoded = [data.toString('base64'), 'base64'];
  else if (encoding === 'base58') encoded = [bs58.encode(data), 'base58'];
  else throw invalidParams(`unsupported encoding ${String(encoding)} (use base64)`);
  return {
    data: encoded,
    executable: info.executable,
    lamports: Number(info.lamports),
    owner: info.owner.toBase58(),
    rentEpoch: Number(info.rentEpoch),
    space: info.data.length,
  };
}

const METHODS: Record<string, (chain: LocalChain, params: unknown[]) => unknown> = {
  getHealth: () => 'ok',
  getGenesisHash: (chain) => chain.genesisHash,
  getVersion: () => ({ 'solana-core': '2.2.0', 'feature-set': 3294202862 }),
  getSlot: (chain, params) => {
    checkCommitment(configOf(params, 0), false);
    return chain.currentSlot;
  },
  getBlockHeight: (chain) => chain.currentSlot,
  getLatestBlockhash: (chain, params) => {
    checkCommitment(configOf(params, 0), false);
    return {
      context: context(chain),
      value: {
        blockhash: chain.svm.latestBlockhash(),
        lastValidBlockHeight: chain.currentSlot + BLOCKHASH_VALID_SLOTS,
      },
    };
  },
  isBlockhashValid: (chain, params) => ({
    context: context(chain),
    value: params[0] === chain.svm.latestBlockhash(),
  }),
  getBalance: (chain, params) => ({ context: context(chain), value: chain.lamports(pubkeyOf(params, 0)) }),
  getAccountInfo: (chain, params) => ({
    context: context(chain),
    value: accountJson(chain, pubkeyOf(params, 0), configOf(params, 1)),
  }),
  getMultipleAccounts: (chain, params) => {
    const keys = params[0];
    if (!Array.isArray(keys) || keys.length > 100) throw invalidParams('expected up to 100 addresses');
    const config = configOf(params, 1);
    return {
      context: context(chain),
      value: keys.map((_, i) => accountJson(chain, pubkeyOf(keys, i), config)),
    };
  },
  getTokenAccountBalance: (chain, params) => {
    const account = chain.tokenAccount(pubkeyOf(params, 0));
    if (!account) throw invalidParams('Invalid param: not a Token account');
    return { context: context(chain), value: uiAmount(account.raw.amount, account.decimals) };
  },
  getMinimumBalanceForRentExemption: (chain, params) => {
    const size = params[0];
    if (typeof size !== 'number' || !Number.isInteger(size) || size < 0)
      throw invalidParams('expected a data length');
    return Number(chain.svm.minimumBalanceForRentExemption(BigInt(size)));
  },
  getFeeForMessage: (chain, params) => {
    if (typeof params[0] !== 'string') throw invalidParams('expected a base64 message');
    let message: VersionedMessage;
    try {
      message = VersionedMessage.deserialize(Buffer.from(params[0], 'base64'));
    } catch {
      throw invalidParams('failed to deserialize message');
    }
    const known = message.recentBlockhash === chain.svm.latestBlockhash();
    return {
      context: context(chain),
      value: known ? LAMPORTS_PER_SIGNATURE * message.header.numRequiredSignatures : null,
    };
  },
  sendTransaction: (chain, params) => {
    const config = configOf(params, 1);
    const wire = decodeTransaction(bytesOf(params, config));
    if (config.skipPreflight !== true) {
      const simulated = chain.simulate(wire);
      if (simulated.err !== null)
        throw new RpcError(-32002, `Transaction simulation failed: ${JSON.stringify(simulated.err)}`, {
          err: simulated.err,
          logs: simulated.logs,
          accounts: null,
          unitsConsumed: simulated.unitsConsumed,
          returnData: null,
        });
    }
    return chain.execute(wire, true).signature;
  },
  simulateTransaction: (chain, params) => {
    const config = configOf(params, 1);
    const simulated = chain.simulate(decodeTransaction(bytesOf(params, config)));
    return {
      context: context(chain),
      value: { ...simulated, accounts: null, returnData: null, innerInstructions: null },
    };
  },
  getSignatureStatuses: (chain, params) => {
    const signatures = params[0];
    if (!Array.isArray(signatures) || signatures.length > 256)
      throw invalidParams('expected up to 256 signatures');
    return {
      context: context(chain),
      value: signatures.map((value) => {
        const landed = chain.find(signatureOf(value, 'signature'));
        if (!landed) return null;
        return {
          slot: landed.slot,
          confirmations: null,
          err: landed.err,
          status: landed.err === null ? { Ok: null } : { Err: landed.err },
          confirmationStatus: 'finalized',
        };
      }),
    };
  },
  getSignaturesForAddress: (chain, params) => {
    const address = pubkeyOf(params, 0).toBase58();
    const config = configOf(params, 1);
    checkCommitment(config, true);
    const limit = config.limit ?? 1000;
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 1000)
      throw invalidParams('Invalid limit; max 1000');
    const before = config.before === undefined ? undefined : signatureOf(config.before, 'before');
    const until = config.until === undefined ? undefined : signatureOf(config.until, 'until');
    const touching = chain.history.filter((tx) => tx.accountKeys.includes(address)).reverse();
    let start = 0;
    if (before !== undefined) {
      const at = touching.findIndex((tx) => tx.signature === before);
      // A `before` the node has not seen for this address: nothing older is known.
      if (at === -1) return [];
      start = at + 1;
    }
    const page = [];
    for (const tx of touching.slice(start)) {
      if (tx.signature === until || page.length === limit) break;
      page.push({
        signature: tx.signature,
        slot: tx.slot,
        err: tx.err,
        memo: memoField(tx.memos),
        blockTime: tx.blockTime,
        confirmationStatus: 'finalized',
      });
    }
    return page;
  },
  getTransaction: (chain, params) => {
    const signature = signatureOf(params[0], 'signature');
    const config = configOf(params, 1);
    checkCommitment(config, true);
    const encoding = config.encoding ?? 'json';
    if (encoding !== 'json' && encoding !== 'base64')
      throw invalidParams(`unsupported encoding ${String(encoding)} (json or base64)`);
    const landed = chain.find(signature);
    if (!landed) return null;
    const maxVersion = config.maxSupportedTransactionVersion;
    const version = landed.transaction.message.version;
    if (version === 0 && maxVersion !== 0)
      throw new RpcError(
        -32015,
        'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
      );
    return {
      slot: landed.slot,
      blockTime: landed.blockTime,
      ...(maxVersion === undefined ? {} : { version }),
      transaction: encoding === 'base64' ? [landed.wire, 'base64'] : transactionJson(landed),
      meta: {
        err: landed.err,
        status: landed.err === null ? { Ok: null } : { Err: landed.err },
        fee: landed.fee,
        preBalances: landed.preBalances,
        postBalances: landed.postBalances,
        innerInstructions: landed.innerInstructions,
        logMessages: landed.logMessages,
        preTokenBalances: landed.preTokenBalances,
        postTokenBalances: landed.postTokenBalances,
        rewards: [],
        loadedAddresses: { writable: [], readonly: [] },
        computeUnitsConsumed: landed.computeUnitsConsumed,
      },
    };
  },
};

/** The Solana methods, each call counted by method in `calls` (what a test asks the node). */
export function solanaDispatch(chain: LocalChain, calls: Map<string, number>): Dispatch {
  return (name, params) => {
    calls.set(name, (calls.get(name) ?? 0) + 1);
    const method = Object.hasOwn(METHODS, name) ? METHODS[name] : undefined;
    if (!method) throw new RpcError(-32601, 'Method not found');
    return method(chain, Array.isArray(params) ? (params as unknown[]) : []);
  };
}
