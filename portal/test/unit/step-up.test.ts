import { describe, expect, it, jest } from '@jest/globals';
import { stepUpRunner, type StepUpPrompt } from '../../src/pages/step-up.js';

const refusal = (category: string) =>
  Object.assign(new Error(category), { problem: { status: 403, error_category: category } });

/** A prompt answering the given codes in turn (null: cancelled), and a verifier accepting `good`. */
function prompt(codes: Array<string | null>, good = '123456') {
  const failures: Array<string | null> = [];
  const verified: string[] = [];
  const p: StepUpPrompt = {
    askCode: async (failure) => {
      failures.push(failure);
      return codes.shift() ?? null;
    },
    verify: async (code) => {
      verified.push(code);
      if (code !== good) throw new Error('That code is not valid.');
    },
  };
  return { p, failures, verified };
}

describe('step-up of the operator console', () => {
  it('asks nothing when the call goes through', async () => {
    const { p, failures } = prompt([]);
    await expect(stepUpRunner(p)(async () => 'ok')).resolves.toBe('ok');
    expect(failures).toEqual([]);
  });

  it('asks for a code on step_up_required, proves it, and retries the call once', async () => {
    const { p, verified } = prompt(['123456']);
    const call = jest.fn<() => Promise<string>>().mockRejectedValueOnce(refusal('step_up_required'));
    call.mockResolvedValueOnce('granted');
    await expect(stepUpRunner(p)(call)).resolves.toBe('granted');
    expect(verified).toEqual(['123456']);
    expect(call).toHaveBeenCalledTimes(2);
  });

  it('asks again after a wrong code, saying why, and retries only once it is proven', async () => {
    const { p, failures, verified } = prompt(['000000', '123456']);
    const call = jest.fn<() => Promise<string>>().mockRejectedValueOnce(refusal('step_up_required'));
    call.mockResolvedValueOnce('granted');
    await expect(stepUpRunner(p)(call)).resolves.toBe('granted');
    expect(failures).toEqual([null, 'That code is not valid.']);
    expect(verified).toEqual(['000000', '123456']);
    expect(call).toHaveBeenCalledTimes(2);
  });

  it('retries once: a second refusal comes through as it is', async () => {
    const { p } = prompt(['123456', '123456']);
    const call = jest.fn<() => Promise<string>>().mockRejectedValue(refusal('step_up_required'));
    await expect(stepUpRunner(p)(call)).rejects.toMatchObject({
      problem: { error_category: 'step_up_required' },
    });
    expect(call).toHaveBeenCalledTimes(2);
  });

  it('fails with the refusal when the person cancels, without retrying', async () => {
    const { p, verified } = prompt([null]);
    const call = jest.fn<() => Promise<string>>().mockRejectedValue(refusal('step_up_required'));
    await expect(stepUpRunner(p)(call)).rejects.toThrow('step_up_required');
    expect(verified).toEqual([]);
    expect(call).toHaveBeenCalledTimes(1);
  });

  it('asks nothing for another refusal: no role, no TOTP, a 403 of another kind', async () => {
    for (const category of ['operator_role_required', 'operator_totp_required', 'forbidden']) {
      const { p, failures } = prompt(['123456']);
      const call = jest.fn<() => Promise<string>>().mockRejectedValue(refusal(category));
      await expect(stepUpRunner(p)(call)).rejects.toThrow(category);
      expect(failures).toEqual([]);
      expect(call).toHaveBeenCalledTimes(1);
    }
  });

  it('shares one prompt between calls refused at once', async () => {
    const { p, failures } = prompt(['123456']);
    const run = stepUpRunner(p);
    const calls = [1, 2, 3].map((n) =>
      jest
        .fn<() => Promise<number>>()
        .mockRejectedValueOnce(refusal('step_up_required'))
        .mockResolvedValueOnce(n),
    );
    await expect(Promise.all(calls.map((c) => run(c)))).resolves.toEqual([1, 2, 3]);
    expect(failures).toEqual([null]);
  });
});
