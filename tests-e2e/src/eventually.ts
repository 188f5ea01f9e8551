/** Waits until `check` holds (a failed check counts as not yet), polling every 200 ms; throws past `timeoutMs`. */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`not so within ${timeoutMs} ms`);
}
