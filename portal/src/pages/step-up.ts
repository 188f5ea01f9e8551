/**
 * Step-up for operator routes: an operator route refuses a session that has not passed its second
 * factor recently with 403 `step_up_required`; the console then asks for a TOTP code, proves it at
 * `POST /v1/account/step-up`, and retries the refused call once. Pure: no DOM and no fetch, so the
 * decisions are unit-tested; the console gives it the dialog and the API call.
 */

export const STEP_UP_CATEGORY = 'step_up_required';
export const STEP_UP_PATH = '/v1/account/step-up';

/** True when a failure is the refusal that a fresh second factor lifts. */
export function needsStepUp(err: unknown): boolean {
  const problem = (err as { problem?: { status?: number; error_category?: string } } | null)?.problem;
  return problem?.status === 403 && problem.error_category === STEP_UP_CATEGORY;
}

export interface StepUpPrompt {
  /** Asks the person for a code; null when they cancel. `failure` says why the last code failed. */
  askCode(failure: string | null): Promise<string | null>;
  /** Proves a code (POST /v1/account/step-up); throws when it is refused. */
  verify(code: string): Promise<void>;
}

/**
 * Runs calls, stepping up when one is refused for want of a recent second factor. Calls refused at
 * once (a page that loads several lists) share one prompt. A refused call is retried once: a
 * second refusal, or a cancelled prompt, fails with the refusal as it came.
 */
export function stepUpRunner(prompt: StepUpPrompt) {
  let pending: Promise<boolean> | null = null;
  const prove = async (): Promise<boolean> => {
    let failure: string | null = null;
    for (;;) {
      const code = await prompt.askCode(failure);
      if (code === null) return false;
      try {
        await prompt.verify(code);
        return true;
      } catch (err) {
        failure = err instanceof Error ? err.message : String(err);
      }
    }
  };
  const stepUp = () => {
    pending ??= prove().finally(() => {
      pending = null;
    });
    return pending;
  };
  return async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (err) {
      if (!needsStepUp(err) || !(await stepUp())) throw err;
      return call();
    }
  };
}
