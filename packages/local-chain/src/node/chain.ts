/**
 * A Solana chain in memory: LiteSVM executes real signed transactions, each in a slot of its own
 * with its own block time, and the chain keeps what landed, like a node with full history at
 * `finalized` commitment. The JSON-RPC methods over it are in rpc-methods.ts.
 *
 * LiteSVM's native code leaves the floating-point state of the thread that calls it dirty once an
 * SPL program has run (`-0 % 60` answers NaN afterwards, so pg in the same process would write
 * dates as "+00:NaN" on a UTC machine): a chain never shares a process with a database client.
 */
import { LiteSVM } from 'litesvm';
import {
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  Transaction,
  TransactionInstruction,
  VersionedTransaction,
} from '@solana/web3.js';
import {
  ACCOUNT_SIZE,
  AccountLayout,
  MINT_SIZE,
  MintLayout,
  TOKEN_PROGRAM_ID,
  createAssociatedTokenAccountIdempotentInstruction,
  createMintToInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from '@solana/spl-token';
import bs58 from 'bs58';
import { DEVNET_GENESIS_HASH, DEVNET_USDC_MINT, networkOf } from '../devnet.js';
import {
  MEMO_PROGRAM_ID,
  MEMO_V1_PROGRAM_ID,
  RpcError,
  isFailure,
  isTokenProgram,
  landsWhenFailed,
  memosOf,
  transactionErrorJson,
  uiAmount,
} from './transaction-meta.js';
import type { LandedTransaction, LocalChainOptions, TokenBalanceJson } from './types.js';

/** Base fee of a signature, lamports (what mainnet charges without priority fee). */
export const LAMPORTS_PER_SIGNATURE = 5000;
/** How many slots a blockhash stays valid on a real cluster. */
export const BLOCKHASH_VALID_SLOTS = 150;

/** A landed transaction as the node keeps it: what it answers, and the transaction decoded. */
export interface Landed extends LandedTransaction {
  transaction: VersionedTransaction;
}

export interface Transfer {
  from: Keypair;
  toOwner: PublicKey;
  amount: bigint;
  memo?: string;
  memoProgram?: 'v1' | 'current';
  mint?: PublicKey;
}

export class LocalChain {
  readonly svm = new LiteSVM();
  readonly authority = Keypair.generate();
  readonly mint: PublicKey;
  readonly decimals: number;
  readonly genesisHash: string;
  readonly history: Landed[] = [];
  private readonly bySignature = new Map<string, Landed>();
  private slot = 1;
  private blockTime = Math.floor(Date.now() / 1000);

  constructor(options: LocalChainOptions = {}) {
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

  get network(): string {
    return networkOf(this.genesisHash);
  }

  /** A new blockhash: transactions signed over the old one no longer land (BlockhashNotFound). */
  expireBlockhash(): string {
    this.svm.expireBlockhash();
    return this.svm.latestBlockhash();
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
