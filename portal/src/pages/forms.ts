import { ApiError } from './api.js';
import { h, replace, uid, type Child } from './dom.js';

export interface Field {
  name: string;
  label: string;
  type?: string;
  required?: boolean;
  autocomplete?: string;
  value?: string;
  options?: Array<[string, string]>;
  hint?: string;
  inputmode?: string;
  min?: string;
}

type Values = Record<string, string>;

/** Shows an error where it belongs: a form-level alert (problem title and detail). */
export function problemBox(err: unknown): HTMLElement {
  const box = h('div', { role: 'alert', class: 'error' });
  showProblem(box, err);
  return box;
}

export function showProblem(box: HTMLElement, err: unknown): void {
  if (err instanceof ApiError) {
    replace(box, h('strong', {}, err.problem.title), err.problem.detail ? ` — ${err.problem.detail}` : '');
  } else replace(box, err instanceof Error ? err.message : String(err));
}

/**
 * A labelled form. On submit it disables its button and says so (long work shows progress); an
 * API error is shown as its problem title and detail, next to the field it names, or above the
 * button when it names none.
 */
export function form(
  fields: Field[],
  submit: string,
  onSubmit: (values: Values) => Promise<void>,
  extra: Child[] = [],
): HTMLFormElement {
  const errors = new Map<string, HTMLElement>();
  const inputs = new Map<string, HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>();
  const rows = fields.map((f) => {
    const id = uid(f.name);
    const errId = `${id}-error`;
    const hintId = f.hint ? `${id}-hint` : undefined;
    const common = {
      id,
      name: f.name,
      required: f.required ?? false,
      autocomplete: f.autocomplete,
      'aria-describedby': [hintId, errId].filter(Boolean).join(' '),
    };
    let input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
    if (f.options) {
      input = h(
        'select',
        common,
        ...f.options.map(([v, l]) => h('option', { value: v }, l)),
      ) as HTMLSelectElement;
      if (f.value !== undefined) input.value = f.value;
    } else if (f.type === 'textarea') {
      input = h('textarea', { ...common, rows: 3 }) as HTMLTextAreaElement;
      input.value = f.value ?? '';
    } else if (f.type === 'checkbox') {
      input = h('input', { ...common, type: 'checkbox' }) as HTMLInputElement;
    } else {
      input = h('input', {
        ...common,
        type: f.type ?? 'text',
        value: f.value,
        inputmode: f.inputmode,
        min: f.min,
      }) as HTMLInputElement;
    }
    inputs.set(f.name, input);
    const err = h('span', { id: errId, class: 'field-error', 'aria-live': 'polite' });
    errors.set(f.name, err);
    const hint = f.hint ? h('span', { id: hintId, class: 'muted' }, f.hint) : null;
    if (f.type === 'checkbox')
      return h('div', {}, h('label', { class: 'check', for: id }, input, h('span', {}, f.label)), hint, err);
    return h('label', { for: id }, f.label, input, hint, err);
  });
  const general = h('div', { role: 'alert', class: 'error' });
  const button = h('button', { type: 'submit' }, submit) as HTMLButtonElement;
  const status = h('span', { role: 'status', class: 'muted' });
  const el = h(
    'form',
    { novalidate: true },
    ...rows,
    ...extra,
    general,
    h('div', { class: 'row' }, button, status),
  ) as HTMLFormElement;
  el.addEventListener('submit', async (event) => {
    event.preventDefault();
    for (const e of errors.values()) e.textContent = '';
    for (const i of inputs.values()) i.removeAttribute('aria-invalid');
    general.textContent = '';
    const values: Values = {};
    for (const [name, input] of inputs)
      values[name] =
        input instanceof HTMLInputElement && input.type === 'checkbox' ? String(input.checked) : input.value;
    button.disabled = true;
    status.textContent = 'Working…';
    try {
      await onSubmit(values);
      status.textContent = '';
    } catch (err) {
      status.textContent = '';
      let placed = false;
      if (err instanceof ApiError) {
        for (const [name, box] of errors) {
          const message = err.fieldMessage(name);
          if (message) {
            box.textContent = `${err.problem.title}: ${message}`;
            inputs.get(name)?.setAttribute('aria-invalid', 'true');
            if (!placed) inputs.get(name)?.focus();
            placed = true;
          }
        }
        if (!placed) {
          // A refusal whose detail names one field of this form goes next to it.
          const named = fields.find(
            (f) =>
              err.problem.detail?.toLowerCase().includes(f.name.replace(/_/g, ' ')) ||
              err.problem.detail?.includes(f.name),
          );
          if (named && fields.length > 1) {
            replace(
              errors.get(named.name)!,
              h('strong', {}, err.problem.title),
              err.problem.detail ? ` — ${err.problem.detail}` : '',
            );
            inputs.get(named.name)?.setAttribute('aria-invalid', 'true');
            placed = true;
          }
        }
      }
      if (!placed) showProblem(general, err);
    } finally {
      button.disabled = false;
    }
  });
  return el;
}

/** A button that runs an action, shows progress, and shows the problem if it fails. */
export function action(label: string, run: () => Promise<void>, cls = 'secondary'): HTMLElement {
  const err = h('span', { role: 'alert', class: 'error' });
  const button = h('button', { type: 'button', class: cls }, label) as HTMLButtonElement;
  button.addEventListener('click', async () => {
    err.textContent = '';
    button.disabled = true;
    try {
      await run();
    } catch (e) {
      showProblem(err, e);
    } finally {
      button.disabled = false;
    }
  });
  return h('span', { class: 'row' }, button, err);
}
