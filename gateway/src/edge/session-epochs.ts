import type { NextFunction, Request, Response } from 'express';
import { SESSIONS_EPOCH_HEADER } from '@meridian/contracts';
import type { Logger } from '@meridian/observability';
import type { SessionEpochs } from '../adapters/session-epochs.js';

const RESET_PATH = '/auth/password/reset';
const EPOCH = /^([0-9a-f-]{36}) (\d{1,9})$/i;

/**
 * A password reset ends every session of the account. Identity's answer names the account and its
 * new sessions epoch; this replica raises the epoch every replica reads before the answer goes on,
 * so once the client has it no replica vouches for a session of the account from memory. The field
 * never reaches the client. The answer is held by deferring the proxy's writes (its headers go
 * out with the first one), which only this one small answer pays for.
 */
export function sessionsEndedOnReset(epochs: SessionEpochs, logger: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.method !== 'POST' || req.path !== RESET_PATH) return next();
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    let state: 'first' | 'holding' | 'passing' = 'first';
    const held: Array<() => void> = [];
    const release = () => {
      state = 'passing';
      for (const call of held.splice(0)) call();
    };
    const pass = (call: () => void) => {
      if (state === 'passing') return call();
      held.push(call);
      if (state === 'holding') return;
      state = 'holding';
      const named = EPOCH.exec(String(res.getHeader(SESSIONS_EPOCH_HEADER) ?? ''));
      res.removeHeader(SESSIONS_EPOCH_HEADER);
      if (!named || res.statusCode >= 300) return release();
      epochs
        .raise(named[1]!, Number(named[2]))
        .catch((err: unknown) =>
          logger.error(
            { err },
            'the sessions epoch of a reset could not be shared; replicas learn it from the events',
          ),
        )
        .finally(release);
    };
    res.write = ((...args: unknown[]) => {
      pass(() => write(...args));
      return true;
    }) as Response['write'];
    res.end = ((...args: unknown[]) => {
      pass(() => end(...args));
      return res;
    }) as Response['end'];
    next();
  };
}
