import { call, get, post } from './api.js';
import { h, replace } from './dom.js';
import { action, form } from './forms.js';

/** The sign-in credentials an audit of the domain may use: listed, removed, stored (write-only). */
export async function credentialsSection(domain: string, box: HTMLElement): Promise<void> {
  const list = await get<
    Array<{ id: string; kind: string; label?: string | null; username?: string | null }>
  >(`/v1/analysis/credentials?domain=${encodeURIComponent(domain)}`);
  const again = () => credentialsSection(domain, box);
  replace(
    box,
    h('h2', {}, 'Sign-in credentials for audits'),
    h(
      'ul',
      {},
      ...list.map((c) =>
        h(
          'li',
          { class: 'row' },
          `${c.label ?? c.kind} (${c.kind}${c.username ? `, ${c.username}` : ''})`,
          action('Remove', async () => {
            await call('DELETE', `/v1/analysis/credentials?id=${encodeURIComponent(c.id)}`);
            await again();
          }),
        ),
      ),
    ),
    form(
      [
        {
          name: 'kind',
          label: 'Kind',
          options: [
            ['form', 'login form'],
            ['basic', 'HTTP basic'],
            ['header', 'header'],
            ['cookie', 'cookie'],
          ],
        },
        { name: 'label', label: 'Label' },
        { name: 'username', label: 'User name', autocomplete: 'off' },
        { name: 'login_url', label: 'Login URL (form)', type: 'url' },
        {
          name: 'secret',
          label: 'Password or secret',
          type: 'password',
          required: true,
          autocomplete: 'new-password',
        },
      ],
      'Store credential',
      async (v) => {
        await post('/v1/analysis/credentials', {
          domain,
          kind: v.kind,
          ...(v.label ? { label: v.label } : {}),
          ...(v.username ? { username: v.username } : {}),
          ...(v.login_url ? { login_url: v.login_url } : {}),
          secret: v.secret,
        });
        await again();
      },
    ),
  );
}
