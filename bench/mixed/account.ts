/** The bench's account, made through the real flow and the operators' command. */
import { randomUUID } from 'node:crypto';
import { linkIn, runScript, type startSmtp } from '@meridian/test-peers';

/** The domain the account adds: the portal's reports list reads it. */
export const DOMAIN = 'bench.example';
const PASSWORD = `bench-${randomUUID()}`;

export const json = { 'content-type': 'application/json' };

export async function expectStatus(res: Response, status: number, what: string): Promise<Response> {
  if (res.status !== status) throw new Error(`${what} answered ${res.status}: ${await res.text()}`);
  return res;
}

/** Sign-up, the mailed link's page and its form, sign-in: the session's token. */
async function signUp(
  gateway: string,
  smtp: Awaited<ReturnType<typeof startSmtp>>,
  email = `bench.${randomUUID().slice(0, 8)}@example.com`,
): Promise<string> {
  await expectStatus(
    await fetch(`${gateway}/auth/signup`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email, password: PASSWORD }),
    }),
    202,
    'sign-up',
  );
  const deadline = Date.now() + 15_000;
  while (!smtp.mails.some((m) => m.to === email) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 100));
  const mail = smtp.mails.find((m) => m.to === email);
  if (!mail) throw new Error(`no confirmation mail for ${email}`);
  const link = linkIn(mail);
  const page = await expectStatus(
    await fetch(`${gateway}${link.pathname}${link.search}`),
    200,
    'the mailed link',
  );
  const form = (await page.text()).match(
    /<form method="post" action="([^"]+)">.*name="token" value="([^"]+)"/s,
  );
  if (!form) throw new Error('no form on the confirmation page');
  await expectStatus(
    await fetch(`${gateway}${form[1]}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: form[2]! }),
    }),
    200,
    'confirmation',
  );
  const login = await expectStatus(
    await fetch(`${gateway}/auth/login`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email, password: PASSWORD }),
    }),
    200,
    'sign-in',
  );
  return ((await login.json()) as { data: { token: string } }).data.token;
}

/**
 * An account through the real flow: sign-up, the mailed link's page and its form, sign-in; credit
 * from the operators' CLI, the ultra plan bought with it; two API keys; with `withDomain` (the
 * default) a domain (no runs yet), which needs the analysis service.
 */
export async function prepareAccount(
  gateway: string,
  smtp: Awaited<ReturnType<typeof startSmtp>>,
  commands: { DATABASE_URL: string; NATS_URL: string; BUS_NAMESPACE: string },
  withDomain = true,
): Promise<{ session: string; accountId: string; keys: { id: string; key: string }[] }> {
  const session = await signUp(gateway, smtp);
  const bearer = { authorization: `Bearer ${session}` };
  const whoami = async () =>
    (
      (await (await fetch(`${gateway}/v1/agent/whoami`, { headers: bearer })).json()) as {
        data: { account_id: string; plan: string };
      }
    ).data;
  const accountId = (await whoami()).account_id;
  // The grant names a checked operator: an account of its own, made the first operator.
  const operator = `bench-operator.${randomUUID().slice(0, 8)}@example.com`;
  await signUp(gateway, smtp, operator);
  const role = await runScript(
    'services/identity/scripts/admin.ts',
    ['grant-operator', operator, '--bootstrap', '--reason', 'bench operator'],
    commands,
  );
  if (role.code !== 0) throw new Error(`identity:admin grant-operator failed: ${role.stderr}`);
  const granted = await runScript(
    'services/billing/scripts/admin.ts',
    ['grant', '--operator', operator, '--account', accountId, '--amount', '500000000', '--note', 'bench'],
    commands,
  );
  if (granted.code !== 0) throw new Error(`billing:admin grant failed: ${granted.stderr}`);
  await expectStatus(
    await fetch(`${gateway}/v1/billing/plan`, {
      method: 'POST',
      headers: { ...json, ...bearer },
      body: JSON.stringify({ plan: 'ultra' }),
    }),
    200,
    'the ultra plan',
  );
  // Billing announces the plan; identity applies it to the account and its keys.
  const planDeadline = Date.now() + 15_000;
  while ((await whoami()).plan !== 'ultra') {
    if (Date.now() > planDeadline) throw new Error('the ultra plan did not reach identity within 15 s');
    await new Promise((r) => setTimeout(r, 200));
  }
  const keys: { id: string; key: string }[] = [];
  for (let i = 0; i < 2; i++) {
    const created = await expectStatus(
      await fetch(`${gateway}/v1/keys`, { method: 'POST', headers: { ...json, ...bearer }, body: '{}' }),
      201,
      'POST /v1/keys',
    );
    keys.push(((await created.json()) as { data: { id: string; key: string } }).data);
  }
  if (withDomain)
    await expectStatus(
      await fetch(`${gateway}/v1/analysis/domains`, {
        method: 'POST',
        headers: { ...json, ...bearer },
        body: JSON.stringify({ domain: DOMAIN }),
      }),
      201,
      'POST /v1/analysis/domains',
    );
  return { session, accountId, keys };
}
