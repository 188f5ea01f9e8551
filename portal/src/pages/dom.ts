import { dollars } from './money.js';

/** A tiny element builder: no framework, no inline script or style (the page's CSP forbids both). */
export type Child = Node | string | number | null | undefined | false | Child[];
type Attrs = Record<string, string | number | boolean | null | undefined | ((e: Event) => void)>;

export function h(tag: string, attrs: Attrs = {}, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  // Tables scroll sideways on a phone: focusable, so the keyboard can scroll them too.
  if (tag === 'table') el.setAttribute('tabindex', '0');
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.replace(/^on/, ''), value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

export function append(el: Node, children: Child[]): void {
  for (const child of children.flat(4 as 1) as Child[]) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

export function replace(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

/** A page of the portal, drawn into `main`: the address `#/name/arg?params` names it and gives it the rest. */
export type Page = (main: HTMLElement, params: URLSearchParams, arg: string) => Promise<void> | void;

let ids = 0;
export const uid = (prefix: string) => `${prefix}-${++ids}`;

/** Money in atomic units as dollars, or a dash when there is none: `dollars` of money.ts says how. */
export const usd = (atomic: number | null | undefined): string =>
  atomic === null || atomic === undefined ? '—' : dollars(atomic);

/** A date-time in the person's own time zone. */
export const local = (iso: string | null | undefined) =>
  iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : '—';

export function copyButton(text: () => string, label = 'Copy'): HTMLElement {
  const status = h('span', { role: 'status', class: 'muted' });
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text());
      status.textContent = 'Copied.';
    } catch {
      status.textContent = 'Copy failed: select the text and copy it yourself.';
    }
  };
  const button = h('button', { type: 'button', class: 'secondary', onclick: () => void copy() }, label);
  return h('span', { class: 'row' }, button, status);
}
