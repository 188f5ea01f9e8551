/** How many trace streams may be open at once on one replica, per run, per account and in all. */
export interface StreamCaps {
  perRun: number;
  perAccount: number;
  /** Every account together: many accounts each within their cap still hold one replica's sockets. */
  total: number;
}

/** Which cap a new stream would pass, or null when it may open. */
export type StreamOverCap = 'run' | 'account' | 'replica' | null;

/** This replica's open trace streams, counted per run and per account. */
export class OpenStreams {
  private readonly byRun = new Map<string, number>();
  private readonly byAccount = new Map<string, number>();

  constructor(readonly caps: StreamCaps) {}

  /** Counts a new stream in, unless it passes a cap (then nothing is counted). */
  take(accountId: string, runId: string): StreamOverCap {
    if ((this.byRun.get(runId) ?? 0) >= this.caps.perRun) return 'run';
    if ((this.byAccount.get(accountId) ?? 0) >= this.caps.perAccount) return 'account';
    if (this.open() >= this.caps.total) return 'replica';
    this.byRun.set(runId, (this.byRun.get(runId) ?? 0) + 1);
    this.byAccount.set(accountId, (this.byAccount.get(accountId) ?? 0) + 1);
    return null;
  }

  give(accountId: string, runId: string): void {
    drop(this.byRun, runId);
    drop(this.byAccount, accountId);
  }

  open(): number {
    let n = 0;
    for (const count of this.byRun.values()) n += count;
    return n;
  }
}

function drop(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 0) - 1;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
}
