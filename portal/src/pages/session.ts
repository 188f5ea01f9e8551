import { ApiError, get } from './api.js';

export interface Account {
  account_id: string;
  email: string;
  plan: string;
  two_factor: unknown;
  nickname: string | null;
  keys: Array<{
    id: string;
    prefix: string;
    created_at: string;
    last_used_at: string | null;
    revoked_at: string | null;
  }>;
  entitlements: unknown;
  /** The operator role (the console's link); the API checks it on every operator call. */
  operator?: boolean;
  provider_links: Array<{ id: string; name: string | null; issuer: string; linked_at: string }>;
}

/** Who is signed in, asked of the API (the cookie is HttpOnly: the page cannot read it). */
export const session = {
  account: undefined as Account | null | undefined,
  async load(): Promise<Account | null> {
    if (this.account !== undefined) return this.account;
    try {
      this.account = await get<Account>('/v1/account');
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) this.account = null;
      else throw err;
    }
    return this.account;
  },
  clear() {
    this.account = undefined;
  },
  /** A TOTP challenge of a password sign-in, kept in memory only until it is answered. */
  challenge: undefined as string | undefined,
};
