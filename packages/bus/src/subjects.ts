import { NOTICE_ROOT, RPC_ROOT } from '@meridian/contracts';

/** NATS subject matching: `*` is one token, `>` is one or more trailing tokens. */
export function subjectMatches(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return s.length > i;
    if (i >= s.length || (p[i] !== '*' && p[i] !== s[i])) return false;
  }
  return p.length === s.length;
}

/** Whether some subject matches both patterns (JetStream refuses streams whose subjects overlap). */
export function patternsOverlap(a: string, b: string): boolean {
  const x = a.split('.');
  const y = b.split('.');
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] === '>' || y[i] === '>') return true;
    if (x[i] !== '*' && y[i] !== '*' && x[i] !== y[i]) return false;
  }
  return x.length === y.length;
}

const TOKEN = /^[^\s.*>]+$/;

/** A subject one can publish to: no wildcards, no empty tokens. */
export function assertPublishSubject(subject: string): void {
  if (!subject.split('.').every((t) => TOKEN.test(t))) throw new Error(`Invalid subject "${subject}"`);
}

/** Requests live under `rpc.`, a root no stream captures, so a request is never stored as an event. */
export function assertRpcSubject(subject: string): void {
  if (!subject.startsWith(`${RPC_ROOT}.`))
    throw new Error(`Request/reply subject "${subject}" must start with ${RPC_ROOT}.`);
}

/** Notices live under `notice.`, a root no stream captures, so a notice is never stored. */
export function assertNoticeSubject(subject: string): void {
  assertPublishSubject(subject);
  if (!subject.startsWith(`${NOTICE_ROOT}.`))
    throw new Error(`Notice subject "${subject}" must start with ${NOTICE_ROOT}.`);
}
