import { DNS_NAME_ABSENT } from '@meridian/contracts';

/**
 * The replicas of one service behind one `*_URL` setting (several URLs, comma-separated): each
 * request goes to the next replica in turn. A replica that refused a connection rests for
 * `restMs` (no request picks it while another is awake), so a replica that died costs one refused
 * connection per `restMs` instead of one per request; when every replica rests, they are tried
 * anyway. A request that failed on one replica may go to one it has not tried (`mayTryElsewhere`).
 */
export class Replicas {
  private turn = 0;
  private readonly restingUntil: number[];

  constructor(
    readonly urls: readonly URL[],
    private readonly restMs: number,
  ) {
    if (urls.length === 0) throw new Error('a service needs at least one URL');
    this.restingUntil = urls.map(() => 0);
  }

  /** The index of the next replica in turn not in `tried`, awake ones first; undefined once all were tried. */
  pick(tried: ReadonlySet<number>, now: number): number | undefined {
    const n = this.urls.length;
    let resting: number | undefined;
    for (let step = 0; step < n; step++) {
      const i = (this.turn + step) % n;
      if (tried.has(i)) continue;
      if (this.restingUntil[i]! <= now) {
        this.turn = (i + 1) % n;
        return i;
      }
      resting ??= i;
    }
    if (resting !== undefined) this.turn = (resting + 1) % n;
    return resting;
  }

  /** The replica at `index` refused a connection (or could not be reached): it rests. */
  refused(index: number, now: number): void {
    this.restingUntil[index] = now + this.restMs;
  }
}

/** Failures where the request never reached the replica: any method may go to another one. */
const UNREACHED = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', ...DNS_NAME_ABSENT]);
/** The connection broke before an answer: the replica may have acted, so only a read goes on. */
const BROKEN = new Set(['ECONNRESET', 'EPIPE']);
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether the replica could not be reached at all (it then rests). */
export function unreachable(code: string | undefined): boolean {
  return code !== undefined && UNREACHED.has(code);
}

/**
 * Whether a request that failed on one replica, before any answer, may be sent to another: never
 * reached it, or a read whose connection broke (a replica killed under it). A write whose
 * connection broke may have been applied, so it is answered 503 (retryable) instead; a timeout
 * is a 504 and not repeated.
 */
export function mayTryElsewhere(code: string | undefined, method: string | undefined): boolean {
  if (unreachable(code)) return true;
  return code !== undefined && BROKEN.has(code) && READS.has(method ?? 'GET');
}

/** A `*_URL` setting: one URL or several, comma-separated (the replicas of one service). */
export function replicaUrls(setting: string): URL[] {
  return setting
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => new URL(s));
}
