import { call, post } from './api.js';
import { h } from './dom.js';
import { form } from './forms.js';
import { STEP_UP_PATH, stepUpRunner } from './step-up.js';

/**
 * The console's calls: each steps up when an operator route asks for a recent second factor
 * (step-up.ts), and the accounts they name are shown as people (email, nickname), never as ids.
 */

/** The dialog that asks for a TOTP code; resolves null when cancelled. */
function askCode(failure: string | null): Promise<string | null> {
  return new Promise((resolve) => {
    const dialog = h('dialog', { 'aria-labelledby': 'step-up-title' }) as HTMLDialogElement;
    const done = (code: string | null) => {
      dialog.close();
      dialog.remove();
      resolve(code);
    };
    dialog.addEventListener('cancel', () => done(null));
    dialog.append(
      h('h2', { id: 'step-up-title' }, 'Confirm with your authenticator'),
      h('p', {}, 'Operator actions need a code from your authenticator app every 15 minutes.'),
      failure ? h('p', { role: 'alert', class: 'error' }, failure) : '',
      form(
        [
          {
            name: 'code',
            label: 'Code',
            required: true,
            autocomplete: 'one-time-code',
            inputmode: 'numeric',
          },
        ],
        'Confirm',
        async (v) => done((v.code ?? '').trim()),
      ),
      h('button', { type: 'button', class: 'secondary', onclick: () => done(null) }, 'Cancel'),
    );
    document.body.append(dialog);
    dialog.showModal();
  });
}

const stepped = stepUpRunner({
  askCode,
  verify: async (code) => {
    await post(STEP_UP_PATH, { code });
  },
});

export interface Listed<T> {
  data: T[];
  meta: { next_cursor?: string | null };
}

/** Runs a call of the console, stepping up once when it asks for it. */
export const opStep = stepped;
export const opList = <T>(path: string) => stepped(() => call<Listed<T>>('GET', path));
export const opGet = async <T>(path: string) => (await stepped(() => call<{ data: T }>('GET', path))).data;
export const opPost = <T>(path: string, body: unknown = {}, headers?: Record<string, string>) =>
  stepped(() => post<T>(path, body, headers));

export interface Person {
  id: string;
  email: string;
  nickname: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** As many ids as identity names in one answer. */
const PER_ASK = 100;
const people = new Map<string, Person | null>();

/** Learns who these accounts are (once each), so that `who` can name them. */
export async function learnPeople(ids: Iterable<string | null | undefined>): Promise<void> {
  const missing = [...new Set(ids)].filter((id): id is string => !!id && UUID.test(id) && !people.has(id));
  for (let i = 0; i < missing.length; i += PER_ASK) {
    const asked = missing.slice(i, i + PER_ASK);
    const found = await opGet<Person[]>(`/v1/operator/accounts?ids=${asked.join(',')}`);
    for (const id of asked) people.set(id, found.find((p) => p.id === id) ?? null);
  }
}

/** An account as a person: the email, and the nickname when there is one. */
export function who(id: string | null | undefined): string {
  if (!id) return '—';
  // A name the command line logged (`operator:ana`) is no account: it is shown as it is.
  if (!UUID.test(id)) return id;
  const person = people.get(id);
  if (!person) return 'an account identity does not know';
  return person.nickname ? `${person.email} (${person.nickname})` : person.email;
}

/** The account of an email or an account id an operator typed; null when none is known. */
export async function personOf(typed: string): Promise<Person | null> {
  const text = typed.trim();
  if (UUID.test(text)) {
    await learnPeople([text]);
    return people.get(text) ?? null;
  }
  const [found] = await opGet<Person[]>(`/v1/operator/accounts?email=${encodeURIComponent(text)}`);
  if (found) people.set(found.id, found);
  return found ?? null;
}

/** The account id an `operator:<id>` or `account:<id>` reference names. */
export const refId = (ref: string, kind: string) =>
  ref.startsWith(`${kind}:`) ? ref.slice(kind.length + 1) : null;
