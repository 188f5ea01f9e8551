/** Waits until `check` holds (a failed check counts as not yet), polling every 200 ms; throws past `timeoutMs`. */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`not so within ${timeoutMs} ms`);
}

/** Polls until `call` is answered `status` (revocations reach the gateway by event), within 15 s; the last status. */
export async function eventuallyAnswered(status: number, call: () => Promise<Response>): Promise<number> {
  const deadline = Date.now() + 15_000;
  let seen = (await call()).status;
  while (seen !== status && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    seen = (await call()).status;
  }
  return seen;
}
