/**
 * What a landed (or refused) transaction says, as a Solana node's JSON answers it: errors by name,
 * token amounts, memo texts.
 */
import type { FailedTransactionMetadata, TransactionMetadata } from 'litesvm';
import { PublicKey, type VersionedTransaction } from '@solana/web3.js';
import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { MEMO_PROGRAM_ADDRESS, MEMO_V1_PROGRAM_ADDRESS } from '../devnet.js';
import type { TokenBalanceJson, TxErrorJson } from './types.js';

export const MEMO_PROGRAM_ID = new PublicKey(MEMO_PROGRAM_ADDRESS);
export const MEMO_V1_PROGRAM_ID = new PublicKey(MEMO_V1_PROGRAM_ADDRESS);

/** A JSON-RPC error answer: code, message and the data a node adds (logs, the error). */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export const invalidParams = (detail: string) => new RpcError(-32602, `Invalid params: ${detail}`);

export function isTokenProgram(owner: PublicKey): boolean {
  return owner.equals(TOKEN_PROGRAM_ID) || owner.equals(TOKEN_2022_PROGRAM_ID);
}

export function isFailure(
  result: TransactionMetadata | FailedTransactionMetadata | { meta(): TransactionMetadata },
): result is FailedTransactionMetadata {
  return typeof (result as FailedTransactionMetadata).err === 'function';
}

export function uiAmount(amount: bigint, decimals: number): TokenBalanceJson['uiTokenAmount'] {
  const scale = 10n ** BigInt(decimals);
  const whole = amount / scale;
  const fraction = (amount % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  const text = fraction ? `${whole}.${fraction}` : `${whole}`;
  return { amount: amount.toString(), decimals, uiAmount: Number(text), uiAmountString: text };
}

/** Memo texts of the transaction's memo instructions, in order. */
export function memosOf(transaction: VersionedTransaction): string[] {
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

export type LiteError = ReturnType<FailedTransactionMetadata['err']>;

/** An error that comes out of executing instructions: such a transaction lands, fee paid, marked failed. */
export function landsWhenFailed(err: LiteError): boolean {
  return typeof err !== 'number';
}

/** The error as a node's JSON answers it: `"BlockhashNotFound"`, `{"InstructionError":[2,{"Custom":1}]}`, ... */
export function transactionErrorJson(err: LiteError): TxErrorJson {
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
