/**
 * The public API, same origin: the session rides the HttpOnly cookie identity sets at sign-in
 * (the page never sees it), and every change sends JSON, which the gateway's cross-site rule
 * requires. Nothing is kept in localStorage.
 */
export interface Problem {
  type?: string;
  title: string;
  status: number;
  detail?: string;
  error_category?: string;
  errors?: Array<{ path: string; message: string }>;
  retry_after?: number;
  /** Billing's refusal of a purchase the credit does not cover: what is there and what it costs. */
  balance_atomic?: number;
  needed_atomic?: number;
}

export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail ? `${problem.title}: ${problem.detail}` : problem.title);
  }
  get status() {
    return this.problem.status;
  }
  /** The message for one field: from the validation errors, else a detail that names the field. */
  fieldMessage(field: string): string | undefined {
    const hit = this.problem.errors?.find(
      (e) => e.path === `body.${field}` || e.path.startsWith(`body.${field}.`),
    );
    return hit?.message;
  }
}

async function problemOf(res: Response): Promise<Problem> {
  const text = await res.text();
  try {
    const body = JSON.parse(text) as Partial<Problem>;
    if (body && typeof body.title === 'string') return { ...body, status: res.status } as Problem;
  } catch {
    /* not JSON */
  }
  return {
    title: res.statusText || 'Request failed',
    status: res.status,
    detail: text.slice(0, 300) || undefined,
  };
}

export async function call<T = unknown>(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: {
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError({ title: 'Network error', status: 0, detail: 'The server could not be reached.' });
  }
  if (!res.ok) throw new ApiError(await problemOf(res));
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

/** The `data` of an envelope answer. */
export async function data<T = unknown>(
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) {
  return (await call<{ data: T; meta?: Record<string, unknown> }>(method, path, body, headers)).data;
}

export const get = <T = unknown>(path: string) => data<T>('GET', path);
export const post = <T = unknown>(path: string, body: unknown = {}, headers?: Record<string, string>) =>
  data<T>('POST', path, body, headers);

function freshKey(): string {
  // getRandomValues works on plain http too, where randomUUID does not.
  return [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * A purchase (subscription, plan, run, booking) sent with an `Idempotency-Key`: the same key while
 * the same order is sent again (a double click, Enter twice, a retry after a lost answer), so the
 * server charges once; a new key for a changed order and after one went through.
 */
export function purchase<T = unknown>(path: string): (body: unknown) => Promise<T> {
  let key = '';
  let order = '';
  return async (body) => {
    const text = JSON.stringify(body);
    if (text !== order) [key, order] = [freshKey(), text];
    const answer = await post<T>(path, body, { 'idempotency-key': key });
    if (order === text) order = '';
    return answer;
  };
}
