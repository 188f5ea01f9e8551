/**
 * The Solana node of `startSolanaPeer` (solana-peer.ts), run as a process of its own:
 * `node --conditions=source --import tsx solana-node.ts '<options JSON>'`. It writes one JSON line
 * on stdout once it listens (SolanaNodeReady) and exits when its stdin closes, i.e. with its parent.
 *
 * It runs apart from the tests because LiteSVM's native code leaves the floating-point state of
 * the thread that calls it dirty once an SPL program has run (`-0 % 60` answers NaN afterwards,
 * so pg in the same process would write dates as "+00:NaN" on a UTC machine). The same dirt can
 * abort this process (std::bad_alloc, seen after ~5 back-to-back transfers with no RPC read between
 * them); the test's helpers then fail with its exit signal and stderr.
 *
 * Two servers on loopback: the Solana JSON-RPC methods, and on a port of its own the control
 * methods (`peer_*`) that the test's helpers call. Neither answers the other's methods.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LiteSVM, type FailedTransactionMetadata, type TransactionMetadata } from 'litesvm';
import {
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  Transaction,
  TransactionInstruction,
  VersionedMessage,
  VersionedTransaction,
} from '@solana/web3.js';
import {
  ACCOUNT_SIZE,
  AccountLayout,
  MINT_SIZE,
  MintLayout,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  createAssociatedTokenAccountIdempotentInstruction,
  createMintToInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from '@solana/spl-token';
import bs58 from 'bs58';
import { z } from 'zod';
import {
  DEVNET_GENESIS_HASH,
  DEVNET_USDC_MINT,
  MEMO_PROGRAM_ID,
  MEMO_V1_PROGRAM_ID,
  type LandedTransaction,
  type SolanaNodeReady,
  type SolanaPeerOptions,
  type TokenBalanceJson,
  type TxErrorJson,
} from './solana-peer.js';

/** Base fee of a signature, lamports (what mainnet charges without priority fee). */
const LAMPORTS_PER_SIGNATURE = 5000;
/** How many slots a blockhash stays valid on a real cluster. */
const BLOCKHASH_VALID_SLOTS = 150;

/** A landed transaction as the node keeps it: what it answers, and the transaction decoded. */
interface Landed extends LandedTransaction {
  transaction: VersionedTransaction;
}

interface Transfer {
  from: Keypair;
  toOwner: PublicKey;
  amount: bigint;
  memo?: string;
  memoProgram?: 'v1' | 'current';
  mint?: PublicKey;
}

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

const invalidParams = (detail: string) => new RpcError(-32602, `Invalid params: ${detail}`);

class LocalChain {
  readonly svm = new LiteSVM();
  readonly authority = Keypair.generate();
  readonly mint: PublicKey;
  readonly decimals: number;
  readonly genesisHash: string;
  readonly history: Landed[] = [];
  private readonly bySignature = new Map<string, Landed>();
  private slot = 1;
  private blockTime = Math.floor(Date.now() / 1000);

  constructor(options: SolanaPeerOptions) {
    this.decimals = options.decimals ?? 6;
    this.genesisHash = options.genesisHash ?? DEVNET_GENESIS_HASH;
    this.svm.warpToSlot(BigInt(this.slot));
    this.setClock();
    this.airdrop(this.authority.publicKey, 1000 * LAMPORTS_PER_SOL);
    this.mint = this.createMint({
      address: new PublicKey(options.mint ?? DEVNET_USDC_MINT),
      decimals: this.decimals,
    });
  }

  get currentSlot(): number {
    return this.slot;
  }

  airdrop(to: PublicKey, lamports: bigint | number): void {
    const account = this.svm.getAccount(to);
    const balance = account ? BigInt(account.lamports) : 0n;
    this.svm.setAccount(to, {
      lamports: Number(balance + BigInt(lamports)),
      data: account?.data ?? new Uint8Array(0),
      owner: account?.owner ?? new PublicKey('11111111111111111111111111111111'),
      executable: account?.executable ?? false,
      rentEpoch: account?.rentEpoch ?? 0,
    });
  }

  createMint(options: { address?: PublicKey; decimals?: number } = {}): PublicKey {
    const address = options.address ?? Keypair.generate().publicKey;
    const data = Buffer.alloc(MINT_SIZE);
    MintLayout.encode(
      {
        mintAuthorityOption: 1,
        mintAuthority: this.authority.publicKey,
        supply: 0n,
        decimals: options.decimals ?? 6,
        isInitialized: true,
        freezeAuthorityOption: 0,
        freezeAuthority: PublicKey.default,
      },
      data,
    );
    this.svm.setAccount(address, {
      lamports: Number(this.svm.minimumBalanceForRentExemption(BigInt(MINT_SIZE))),
      data,
      owner: TOKEN_PROGRAM_ID,
      executable: false,
      rentEpoch: 0,
    });
    return address;
  }

  ata(owner: PublicKey, mint: PublicKey = this.mint): PublicKey {
    return getAssociatedTokenAddressSync(mint, owner, true);
  }

  wallet(funds: { sol?: number; usdc?: bigint } = {}): Keypair {
    const keypair = Keypair.generate();
    this.airdrop(keypair.publicKey, Math.round((funds.sol ?? 1) * LAMPORTS_PER_SOL));
    if (funds.usdc !== undefined) this.mintTo(keypair.publicKey, funds.usdc);
    return keypair;
  }

  createTokenAccount(owner: PublicKey, mint: PublicKey = this.mint): PublicKey {
    const account = this.ata(owner, mint);
    const ix = createAssociatedTokenAccountIdempotentInstruction(
      this.authority.publicKey,
      account,
      owner,
      mint,
    );
    this.send(this.signed([ix], this.authority), false);
    return account;
  }

  mintTo(owner: PublicKey, amount: bigint, mint: PublicKey = this.mint): string {
    const account = this.ata(owner, mint);
    const tx = this.signed(
      [
        createAssociatedTokenAccountIdempotentInstruction(this.authority.publicKey, account, owner, mint),
        createMintToInstruction(mint, account, this.authority.publicKey, amount),
      ],
      this.authority,
    );
    return this.send(tx, false).signature;
  }

  transfer(options: Transfer, failing: boolean): string {
    const mint = options.mint ?? this.mint;
    const decimals = this.decimalsOf(mint) ?? this.decimals;
    const source = this.ata(options.from.publicKey, mint);
    const destination = this.ata(options.toOwner, mint);
    const amount = failing ? this.tokenBalance(source) + 1n : options.amount;
    const instructions: TransactionInstruction[] = [];
    if (!this.svm.getAccount(destination))
      instructions.push(
        createAssociatedTokenAccountIdempotentInstruction(
          options.from.publicKey,
          destination,
          options.toOwner,
          mint,
        ),
      );
    if (options.memo !== undefined)
      instructions.push(
        new TransactionInstruction({
          programId: options.memoProgram === 'v1' ? MEMO_V1_PROGRAM_ID : MEMO_PROGRAM_ID,
          keys: [{ pubkey: options.from.publicKey, isSigner: true, isWritable: false }],
          data: Buffer.from(options.memo, 'utf8'),
        }),
      );
    instructions.push(
      createTransferCheckedInstruction(source, mint, destination, options.from.publicKey, amount, decimals),
    );
    const landed = this.send(this.signed(instructions, options.from), failing);
    if (failing && landed.err === null) throw new Error('the failing transfer succeeded');
    return landed.signature;
  }

  tokenBalance(account: PublicKey): bigint {
    const info = this.svm.getAccount(account);
    if (!info || info.data.length < ACCOUNT_SIZE) return 0n;
    return AccountLayout.decode(info.data.slice(0, ACCOUNT_SIZE)).amount;
  }

  private signed(instructions: TransactionInstruction[], payer: Keypair): Transaction {
    const tx = new Transaction().add(...instructions);
    tx.feePayer = payer.publicKey;
    tx.recentBlockhash = this.svm.latestBlockhash();
    tx.sign(payer);
    return tx;
  }

  /** Executes in a new slot; a transaction that fails before execution does not land and throws. */
  send(tx: Transaction, allowFailure: boolean): Landed {
    return this.execute(Uint8Array.from(tx.serialize()), allowFailure);
  }

  execute(wire: Uint8Array, allowFailure: boolean): Landed {
    const transaction = VersionedTransaction.deserialize(wire);
    if (transaction.message.addressTableLookups.length > 0)
      throw new RpcError(-32602, 'address lookup tables are not supported by this local node');
    const keys = transaction.message.staticAccountKeys;
    this.slot += 1;
    this.blockTime = Math.max(this.blockTime, Math.floor(Date.now() / 1000));
    this.svm.warpToSlot(BigInt(this.slot));
    this.setClock();
    const preBalances = keys.map((key) => this.lamports(key));
    const preTokenBalances = this.tokenBalances(keys);
    const result = this.svm.sendTransaction(transaction);
    const failed = isFailure(result);
    const meta = failed ? result.meta() : result;
    const err = failed ? transactionErrorJson(result.err()) : null;
    if (failed && !landsWhenFailed(result.err())) {
      throw new RpcError(-32002, `Transaction failed before execution: ${JSON.stringify(err)}`, {
        err,
        logs: meta.logs(),
      });
    }
    const signature = bs58.encode(meta.signature());
    const landed: Landed = {
      signature,
      slot: this.slot,
      blockTime: this.blockTime,
      err,
      wire: Buffer.from(wire).toString('base64'),
      transaction,
      accountKeys: keys.map((key) => key.toBase58()),
      fee: LAMPORTS_PER_SIGNATURE * transaction.message.header.numRequiredSignatures,
      preBalances,
      postBalances: keys.map((key) => this.lamports(key)),
      preTokenBalances,
      postTokenBalances: this.tokenBalances(keys),
      logMessages: meta.logs(),
      innerInstructions: meta
        .innerInstructions()
        .map((group, index) => ({
          index,
          instructions: group.map((inner) => ({
            programIdIndex: inner.instruction().programIdIndex(),
            accounts: Array.from(inner.instruction().accounts()),
            data: bs58.encode(inner.instruction().data()),
            stackHeight: inner.stackHeight(),
          })),
        }))
        .filter((group) => group.instructions.length > 0),
      computeUnitsConsumed: Number(meta.computeUnitsConsumed()),
      memos: memosOf(transaction),
    };
    this.history.push(landed);
    this.bySignature.set(signature, landed);
    if (err !== null && !allowFailure)
      throw new Error(`transaction ${signature} failed: ${JSON.stringify(err)}`);
    return landed;
  }

  simulate(wire: Uint8Array) {
    const transaction = VersionedTransaction.deserialize(wire);
    const result = this.svm.simulateTransaction(transaction);
    if (isFailure(result)) {
      const meta = result.meta();
      return {
        err: transactionErrorJson(result.err()),
        logs: meta.logs(),
        unitsConsumed: Number(meta.computeUnitsConsumed()),
      };
    }
    const meta = result.meta();
    return { err: null, logs: meta.logs(), unitsConsumed: Number(meta.computeUnitsConsumed()) };
  }

  find(signature: string): Landed | undefined {
    return this.bySignature.get(signature);
  }

  decimalsOf(mint: PublicKey): number | undefined {
    const info = this.svm.getAccount(mint);
    if (!info || info.data.length < MINT_SIZE || !isTokenProgram(info.owner)) return undefined;
    return MintLayout.decode(info.data.slice(0, MINT_SIZE)).decimals;
  }

  lamports(key: PublicKey): number {
    return Number(this.svm.getBalance(key) ?? 0n);
  }

  /** The token account at `address` with its mint's decimals, or undefined when it is none. */
  tokenAccount(address: PublicKey) {
    const info = this.svm.getAccount(address);
    if (!info || !isTokenProgram(info.owner) || info.data.length < ACCOUNT_SIZE) return undefined;
    const raw = AccountLayout.decode(info.data.slice(0, ACCOUNT_SIZE));
    if (raw.state === 0) return undefined;
    const decimals = this.decimalsOf(raw.mint) ?? 0;
    return { raw, decimals, programId: info.owner };
  }

  private tokenBalances(keys: PublicKey[]): TokenBalanceJson[] {
    const balances: TokenBalanceJson[] = [];
    keys.forEach((key, accountIndex) => {
      const account = this.tokenAccount(key);
      if (!account) return;
      balances.push({
        accountIndex,
        mint: account.raw.mint.toBase58(),
        owner: account.raw.owner.toBase58(),
        programId: account.programId.toBase58(),
        uiTokenAmount: uiAmount(account.raw.amount, account.decimals),
      });
    });
    return balances;
  }

  private setClock(): void {
    const clock = this.svm.getClock();
    clock.unixTimestamp = BigInt(this.blockTime);
    this.svm.setClock(clock);
  }
}

function isTokenProgram(owner: PublicKey): boolean {
  return owner.equals(TOKEN_PROGRAM_ID) || owner.equals(TOKEN_2022_PROGRAM_ID);
}

function isFailure(
  result: TransactionMetadata | FailedTransactionMetadata | { meta(): TransactionMetadata },
): result is FailedTransactionMetadata {
  return typeof (result as FailedTransactionMetadata).err === 'function';
}

function uiAmount(amount: bigint, decimals: number): TokenBalanceJson['uiTokenAmount'] {
  const scale = 10n ** BigInt(decimals);
  const whole = amount / scale;
  const fraction = (amount % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  const text = fraction ? `${whole}.${fraction}` : `${whole}`;
  return { amount: amount.toString(), decimals, uiAmount: Number(text), uiAmountString: text };
}

/** Memo texts of the transaction's memo instructions, in order. */
function memosOf(transaction: VersionedTransaction): string[] {
  const keys = transaction.message.staticAccountKeys;
  return transaction.message.compiledInstructions
    .filter((ix) => {
      const program = keys[ix.programIdIndex];
      return program !== undefined && (program.equals(MEMO_PROGRAM_ID) || program.equals(MEMO_V1_PROGRAM_ID));
    })
    .map((ix) => Buffer.from(ix.data).toString('utf8'));
}

// Names of the transaction and instruction errors, in the order of their Rust enums (as litesvm numbers them).
const TRANSACTION_ERRORS = [
  'AccountInUse',
  'AccountLoadedTwice',
  'AccountNotFound',
  'ProgramAccountNotFound',
  'InsufficientFundsForFee',
  'InvalidAccountForFee',
  'AlreadyProcessed',
  'BlockhashNotFound',
  'CallChainTooDeep',
  'MissingSignatureForFee',
  'InvalidAccountIndex',
  'SignatureFailure',
  'InvalidProgramForExecution',
  'SanitizeFailure',
  'ClusterMaintenance',
  'AccountBorrowOutstanding',
  'WouldExceedMaxBlockCostLimit',
  'UnsupportedVersion',
  'InvalidWritableAccount',
  'WouldExceedMaxAccountCostLimit',
  'WouldExceedAccountDataBlockLimit',
  'TooManyAccountLocks',
  'AddressLookupTableNotFound',
  'InvalidAddressLookupTableOwner',
  'InvalidAddressLookupTableData',
  'InvalidAddressLookupTableIndex',
  'InvalidRentPayingAccount',
  'WouldExceedMaxVoteCostLimit',
  'WouldExceedAccountDataTotalLimit',
  'MaxLoadedAccountsDataSizeExceeded',
  'ResanitizationNeeded',
  'InvalidLoadedAccountsDataSizeLimit',
  'UnbalancedTransaction',
  'ProgramCacheHitMaxLimit',
  'CommitCancelled',
];
const INSTRUCTION_ERRORS = [
  'GenericError',
  'InvalidArgument',
  'InvalidInstructionData',
  'InvalidAccountData',
  'AccountDataTooSmall',
  'InsufficientFunds',
  'IncorrectProgramId',
  'MissingRequiredSignature',
  'AccountAlreadyInitialized',
  'UninitializedAccount',
  'UnbalancedInstruction',
  'ModifiedProgramId',
  'ExternalAccountLamportSpend',
  'ExternalAccountDataModified',
  'ReadonlyLamportChange',
  'ReadonlyDataModified',
  'DuplicateAccountIndex',
  'ExecutableModified',
  'RentEpochModified',
  'NotEnoughAccountKeys',
  'AccountDataSizeChanged',
  'AccountNotExecutable',
  'AccountBorrowFailed',
  'AccountBorrowOutstanding',
  'DuplicateAccountOutOfSync',
  'InvalidError',
  'ExecutableDataModified',
  'ExecutableLamportChange',
  'ExecutableAccountNotRentExempt',
  'UnsupportedProgramId',
  'CallDepth',
  'MissingAccount',
  'ReentrancyNotAllowed',
  'MaxSeedLengthExceeded',
  'InvalidSeeds',
  'InvalidRealloc',
  'ComputationalBudgetExceeded',
  'PrivilegeEscalation',
  'ProgramEnvironmentSetupFailure',
  'ProgramFailedToComplete',
  'ProgramFailedToCompile',
  'Immutable',
  'IncorrectAuthority',
  'AccountNotRentExempt',
  'InvalidAccountOwner',
  'ArithmeticOverflow',
  'UnsupportedSysvar',
  'IllegalOwner',
  'MaxAccountsDataAllocationsExceeded',
  'MaxAccountsExceeded',
  'MaxInstructionTraceLengthExceeded',
  'BuiltinProgramsMustConsumeComputeUnits',
  'BorshIoError',
];

type LiteError = ReturnType<FailedTransactionMetadata['err']>;

/** An error that comes out of executing instructions: such a transaction lands, fee paid, marked failed. */
function landsWhenFailed(err: LiteError): boolean {
  return typeof err !== 'number';
}

/** The error as a node's JSON answers it: `"BlockhashNotFound"`, `{"InstructionError":[2,{"Custom":1}]}`, ... */
function transactionErrorJson(err: LiteError): TxErrorJson {
  if (typeof err === 'number') return TRANSACTION_ERRORS[err] ?? 'UnknownTransactionError';
  if ('err' in err && typeof err.err === 'function') {
    const inner = err.err();
    let detail: TxErrorJson;
    if (typeof inner === 'number') detail = INSTRUCTION_ERRORS[inner] ?? 'GenericError';
    else if ('code' in inner) detail = { Custom: inner.code };
    else detail = { BorshIoError: inner.msg };
    return { InstructionError: [err.index, detail] };
  }
  if ('index' in err) return { DuplicateInstruction: err.index };
  const name = err.toString().includes('Restricted')
    ? 'ProgramExecutionTemporarilyRestricted'
    : 'InsufficientFundsForRent';
  return { [name]: { account_index: err.accountIndex } };
}

// ---------------------------------------------------------------- JSON-RPC

interface RpcRequest {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

/** Answers a method by name, or throws an RpcError (-32601 when it knows no such method). */
type Dispatch = (method: string, params: unknown) => unknown;

async function handleHttp(dispatch: Dispatch, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'POST' }).end();
    return;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    reply(res, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    return;
  }
  if (Array.isArray(body)) {
    if (body.length === 0) {
      reply(res, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid request' } });
      return;
    }
    reply(
      res,
      body.map((one) => answer(dispatch, one as RpcRequest)),
    );
    return;
  }
  reply(res, answer(dispatch, body as RpcRequest));
}

function reply(res: ServerResponse, payload: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
}

function answer(dispatch: Dispatch, request: RpcRequest) {
  const id = typeof request?.id === 'number' || typeof request?.id === 'string' ? request.id : null;
  if (
    typeof request !== 'object' ||
    request === null ||
    request.jsonrpc !== '2.0' ||
    typeof request.method !== 'string'
  )
    return { jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid request' } };
  try {
    return { jsonrpc: '2.0', id, result: dispatch(request.method, request.params) };
  } catch (err) {
    if (err instanceof RpcError)
      return {
        jsonrpc: '2.0',
        id,
        error: {
          code: err.code,
          message: err.message,
          ...(err.data === undefined ? {} : { data: err.data }),
        },
      };
    return { jsonrpc: '2.0', id, error: { code: -32603, message: `Internal error: ${String(err)}` } };
  }
}

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

function decodeTransaction(wire: Uint8Array): Uint8Array {
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

/** The Solana methods, each call counted by method for `peer_calls`. */
function solanaDispatch(chain: LocalChain, calls: Map<string, number>): Dispatch {
  return (name, params) => {
    calls.set(name, (calls.get(name) ?? 0) + 1);
    const method = Object.hasOwn(METHODS, name) ? METHODS[name] : undefined;
    if (!method) throw new RpcError(-32601, 'Method not found');
    return method(chain, Array.isArray(params) ? (params as unknown[]) : []);
  };
}

// ---------------------------------------------------------------- control (the test's helpers)

const address = z.string().transform((value, ctx) => {
  try {
    return new PublicKey(value);
  } catch {
    ctx.addIssue({ code: 'custom', message: `invalid address ${value}` });
    return z.NEVER;
  }
});
/** A key pair as the bytes of its 64-byte secret key, base64. */
const secretKey = z.base64().transform((value, ctx) => {
  try {
    return Keypair.fromSecretKey(Buffer.from(value, 'base64'));
  } catch {
    ctx.addIssue({ code: 'custom', message: 'invalid secret key' });
    return z.NEVER;
  }
});
/** Atomic units (or lamports) as a decimal string: they may not fit a JSON number. */
const atomic = z
  .string()
  .regex(/^\d{1,20}$/)
  .transform((value) => BigInt(value));
const transferParams = z.object({
  from: secretKey,
  toOwner: address,
  memo: z.string().optional(),
  memoProgram: z.enum(['v1', 'current']).optional(),
  mint: address.optional(),
});

const secretOf = (keypair: Keypair) => Buffer.from(keypair.secretKey).toString('base64');
const publicOf = ({ transaction: _, ...landed }: Landed): LandedTransaction => landed;

function parsed<T extends z.ZodType>(schema: T, params: unknown): z.output<T> {
  const result = schema.safeParse(params ?? {});
  if (!result.success) throw invalidParams(z.prettifyError(result.error));
  return result.data;
}

/** What the test's helpers call (solana-peer.ts): by-name params, key pairs as secret-key bytes. */
const CONTROL: Record<string, (chain: LocalChain, params: unknown) => unknown> = {
  peer_wallet: (chain, params) => {
    const funds = parsed(
      z.object({ sol: z.number().nonnegative().max(1e6).optional(), usdc: atomic.optional() }),
      params,
    );
    return secretOf(chain.wallet(funds));
  },
  peer_airdrop: (chain, params) => {
    const { to, lamports } = parsed(z.object({ to: address, lamports: atomic }), params);
    chain.airdrop(to, lamports);
    return null;
  },
  peer_createTokenAccount: (chain, params) => {
    const { owner, mint } = parsed(z.object({ owner: address, mint: address.optional() }), params);
    return chain.createTokenAccount(owner, mint).toBase58();
  },
  peer_mintTo: (chain, params) => {
    const { owner, amount, mint } = parsed(
      z.object({ owner: address, amount: atomic, mint: address.optional() }),
      params,
    );
    return chain.mintTo(owner, amount, mint);
  },
  peer_createMint: (chain, params) => {
    const options = parsed(
      z.object({ address: address.optional(), decimals: z.number().int().min(0).max(18).optional() }),
      params,
    );
    return chain.createMint(options).toBase58();
  },
  peer_transfer: (chain, params) =>
    chain.transfer(parsed(transferParams.extend({ amount: atomic }), params), false),
  peer_failingTransfer: (chain, params) =>
    chain.transfer({ ...parsed(transferParams, params), amount: 0n }, true),
  peer_send: (chain, params) => {
    const { wire, allowFailure } = parsed(z.object({ wire: z.base64(), allowFailure: z.boolean() }), params);
    return publicOf(chain.execute(decodeTransaction(Buffer.from(wire, 'base64')), allowFailure));
  },
  peer_tokenBalance: (chain, params) => {
    const { account } = parsed(z.object({ account: address }), params);
    return chain.tokenBalance(account).toString();
  },
  peer_history: (chain) => chain.history.map(publicOf),
  /** A new blockhash: transactions signed over the old one no longer land (BlockhashNotFound). */
  peer_expireBlockhash: (chain) => {
    chain.svm.expireBlockhash();
    return chain.svm.latestBlockhash();
  },
};

function controlDispatch(chain: LocalChain, calls: Map<string, number>): Dispatch {
  return (name, params) => {
    if (name === 'peer_calls') return Object.fromEntries(calls);
    const method = Object.hasOwn(CONTROL, name) ? CONTROL[name] : undefined;
    if (!method) throw new RpcError(-32601, 'Method not found');
    return method(chain, params);
  };
}

// ---------------------------------------------------------------- the process

async function listen(dispatch: Dispatch): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    void handleHttp(dispatch, req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const options = z
  .object({
    mint: z.string().optional(),
    decimals: z.number().int().min(0).max(18).optional(),
    genesisHash: z.string().optional(),
  })
  .parse(JSON.parse(process.argv[2] ?? '{}')) satisfies SolanaPeerOptions;
const chain = new LocalChain(options);
const calls = new Map<string, number>();
const rpc = await listen(solanaDispatch(chain, calls));
const control = await listen(controlDispatch(chain, calls));
// With its parent gone (close(), exit or crash), stdin reaches its end: the node goes too.
process.stdin.on('end', () => process.exit(0));
process.stdin.on('close', () => process.exit(0));
process.stdin.resume();
const ready: SolanaNodeReady = {
  url: rpc.url,
  control: control.url,
  network: `solana:${chain.genesisHash.slice(0, 32)}`,
  mint: chain.mint.toBase58(),
  decimals: chain.decimals,
  authority: secretOf(chain.authority),
};
process.stdout.write(`${JSON.stringify(ready)}\n`);
