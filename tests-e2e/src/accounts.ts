import { rememberSecret } from '@meridian/observability/testing';
import { linkIn, runScript } from '@meridian/test-peers';
import type { System } from './system.js';

export interface Mailbox {
  mails: { to: string; text: string }[];
}

export interface SignedIn {
  email: string;
  password: string;
  /** Session token: the cookie value, also accepted as a bearer token. */
  session: string;
}

const PASSWORD = rememberSecret('marigold-telescope-quarry-61');

export async function postJson(system: System, path: string, body: unknown, token?: string) {
  return fetch(`${system.gatewayUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
}

/** Signs up through the gateway, confirms through the mailed link's page and signs in. */
export async function signedInAccount(system: System, mailbox: Mailbox, label: string): Promise<SignedIn> {
  const email = `${label}.${Date.now()}.${Math.random().toString(36).slice(2, 8)}@example.com`;
  const signup = await postJson(system, '/auth/signup', { email, password: PASSWORD });
  if (signup.status !== 202) throw new Error(`signup answered ${signup.status}`);
  const mail = await mailTo(mailbox, email);
  const confirmed = await pressConfirmButton(system, linkIn(mail));
  if (confirmed.status !== 200) throw new Error(`confirmation answered ${confirmed.status}`);
  const login = await postJson(system, '/auth/login', { email, password: PASSWORD });
  if (login.status !== 200) throw new Error(`login answered ${login.status}`);
  const body = (await login.json()) as { data: { token: string } };
  return { email, password: PASSWORD, session: rememberSecret(body.data.token) };
}

/** The `nth` mail to `email` (the first by default), waiting up to 15 s for it. */
export async function mailTo(
  mailbox: Mailbox,
  email: string,
  nth = 1,
): Promise<{ to: string; text: string }> {
  const mails = () => mailbox.mails.filter((m) => m.to === email);
  const deadline = Date.now() + 15_000;
  while (mails().length < nth && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const mail = mails()[nth - 1];
  if (!mail) throw new Error(`mail ${nth} to ${email} never came`);
  return mail;
}

/**
 * Opens the mailed confirmation link through the gateway (a page that changes nothing) and
 * submits its form, as a browser does.
 */
export async function pressConfirmButton(system: System, link: URL): Promise<Response> {
  const page = await fetch(`${system.gatewayUrl}${link.pathname}${link.search}`);
  if (page.status !== 200) throw new Error(`the link answered ${page.status}`);
  const form = (await page.text()).match(
    /<form method="post" action="([^"]+)">.*name="token" value="([^"]+)"/s,
  );
  if (!form) throw new Error('no form on the confirmation page');
  return fetch(`${system.gatewayUrl}${form[1]}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: form[2]! }),
  });
}

/** Creates an API key for the signed-in account; the secret is shown once. */
export async function createKey(system: System, session: string): Promise<{ id: string; key: string }> {
  const res = await postJson(system, '/v1/keys', {}, session);
  if (res.status !== 201) throw new Error(`POST /v1/keys answered ${res.status}`);
  const body = (await res.json()) as { data: { id: string; key: string } };
  return { id: body.data.id, key: rememberSecret(body.data.key) };
}

/** The command lines' environment for a system: its database and the bus its services answer on. */
export function commandEnv(system: System): Record<string, string> {
  const { DATABASE_URL, NATS_URL, BUS_NAMESPACE } = system.env ?? {};
  return Object.fromEntries(
    Object.entries({ DATABASE_URL, NATS_URL, BUS_NAMESPACE }).filter(
      (e): e is [string, string] => e[1] !== undefined,
    ),
  );
}

const operators = new Map<string, Promise<string>>();

/**
 * The operator the e2e commands name (`--operator <email>`, checked by identity): an account signed
 * up on the system and given the role once by `identity:admin grant-operator --bootstrap`, the
 * first operator of a system. `database` is the commands' environment (commandEnv, or the
 * all-in-one's `{ DATA_DIR, DATABASE_URL: '' }`).
 */
export function operatorOf(
  system: System,
  mailbox: Mailbox,
  database: Record<string, string>,
): Promise<string> {
  const key = database.DATA_DIR ?? database.DATABASE_URL ?? system.gatewayUrl;
  let email = operators.get(key);
  if (!email) {
    email = (async () => {
      const operator = await signedInAccount(system, mailbox, 'operator');
      const run = await runScript(
        'services/identity/scripts/admin.ts',
        ['grant-operator', operator.email, '--bootstrap', '--reason', 'e2e operator'],
        database,
      );
      if (run.code !== 0) throw new Error(`grant-operator failed: ${run.stderr}`);
      return operator.email;
    })();
    operators.set(key, email);
  }
  return email;
}

/**
 * Credit for an account through billing's operators' command line (the public interface for it),
 * named by `operator` (operatorOf), against `database`: commandEnv(system), or the all-in-one's
 * `{ DATA_DIR, DATABASE_URL: '' }`. Its exit code and output.
 */
export function grantCredit(
  database: Record<string, string>,
  accountId: string,
  amountAtomic: number,
  note: string,
  operator: string,
): ReturnType<typeof runScript> {
  return runScript(
    'services/billing/scripts/admin.ts',
    [
      'grant',
      '--operator',
      operator,
      '--account',
      accountId,
      '--amount',
      String(amountAtomic),
      '--note',
      note,
    ],
    database,
  );
}
