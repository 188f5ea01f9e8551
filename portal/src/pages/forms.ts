import { ApiError } from './api.js';
import { h, replace, uid, type Child } from './dom.js';
import { needsCredit, problemWords } from './problems.js';

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

/** Shows an error where it belongs: a form-level alert, in words (problems.ts). */
export function problemBox(err: unknown): HTMLElement {
  const box = h('div', { role: 'alert', class: 'error' });
  showProblem(box, err);
  return box;
}

export function showProblem(box: HTMLElement, err: unknown): void {
  if (err instanceof ApiError) {
    const topUp = needsCredit(err.problem) && !location.hash.startsWith('#/credit');
    replace(
      box,
      problemWords(err.problem),
      topUp ? [' ', h('a', { href: '#/credit' }, 'Go to Credit')] : null,
    );
  } else replace(box, err instanceof Error ? err.message : String(err));
}

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

/** The control of one field: a select, a textarea, a checkbox or an input of the field's type. */
function control(f: Field, common: Record<string, string | boolean | undefined>): Control {
  if (f.options) {
    const select = h(
      'select',
      common,
      ...f.options.map(([v, l]) => h('option', { value: v }, l)),
    ) as HTMLSelectElement;
    if (f.value !== undefined) select.value = f.value;
    return select;
  }
  if (f.type === 'textarea') {
    const area = h('textarea', { ...common, rows: 3 }) as HTMLTextAreaElement;
    area.value = f.value ?? '';
    return area;
  }
  if (f.type === 'checkbox') return h('input', { ...common, type: 'checkbox' }) as HTMLInputElement;
  return h('input', {
    ...common,
    type: f.type ?? 'text',
    value: f.value,
    inputmode: f.inputmode,
    min: f.min,
  }) as HTMLInputElement;
}

/** A form's fields: their controls and error boxes by name. */
interface FieldBoxes {
  fields: Field[];
  inputs: Map<string, Control>;
  errors: Map<string, HTMLElement>;
}

/** One labelled field with its hint and its error box, registered in `boxes`. */
function fieldRow(f: Field, boxes: FieldBoxes): HTMLElement {
  const id = uid(f.name);
  const errId = `${id}-error`;
  const hintId = f.hint ? `${id}-hint` : undefined;
  const input = control(f, {
    id,
    name: f.name,
    required: f.required ?? false,
    autocomplete: f.autocomplete,
    'aria-describedby': [hintId, errId].filter(Boolean).join(' '),
  });
  boxes.inputs.set(f.name, input);
  const err = h('span', { id: errId, class: 'field-error', 'aria-live': 'polite' });
  boxes.errors.set(f.name, err);
  const hint = f.hint ? h('span', { id: hintId, class: 'muted' }, f.hint) : null;
  if (f.type === 'checkbox')
    return h('div', {}, h('label', { class: 'check', for: id }, input, h('span', {}, f.label)), hint, err);
  return h('label', { for: id }, f.label, input, hint, err);
}

/** Puts a refusal next to the fields it names; false when it names none of them. */
function placeFieldProblem(err: ApiError, { fields, inputs, errors }: FieldBoxes): boolean {
  let placed = false;
  for (const [name, box] of errors) {
    const message = err.fieldMessage(name);
    if (message) {
      box.textContent = message;
      inputs.get(name)?.setAttribute('aria-invalid', 'true');
      if (!placed) inputs.get(name)?.focus();
      placed = true;
    }
  }
  if (placed) return true;
  // A refusal whose detail names one field of this form goes next to it.
  const named = fields.find(
    (f) =>
      err.problem.detail?.toLowerCase().includes(f.name.replace(/_/g, ' ')) ||
      err.problem.detail?.includes(f.name),
  );
  if (!named || fields.length <= 1) return false;
  replace(errors.get(named.name)!, problemWords(err.problem));
  inputs.get(named.name)?.setAttribute('aria-invalid', 'true');
  return true;
}

/**
 * A labelled form. On submit it disables its button and says so (long work shows progress); an
 * API error is shown in words (problems.ts), next to the field it names, or above the button when
 * it names none.
 */
export function form(
  fields: Field[],
  submit: string,
  onSubmit: (values: Values) => Promise<void>,
  extra: Child[] = [],
): HTMLFormElement {
  const boxes: FieldBoxes = { fields, inputs: new Map(), errors: new Map() };
  const rows = fields.map((f) => fieldRow(f, boxes));
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
  const send = async () => {
    for (const e of boxes.errors.values()) e.textContent = '';
    for (const i of boxes.inputs.values()) i.removeAttribute('aria-invalid');
    general.textContent = '';
    const values: Values = {};
    for (const [name, input] of boxes.inputs)
      values[name] =
        input instanceof HTMLInputElement && input.type === 'checkbox' ? String(input.checked) : input.value;
    button.disabled = true;
    status.textContent = 'Working…';
    try {
      await onSubmit(values);
      status.textContent = '';
    } catch (err) {
      status.textContent = '';
      if (!(err instanceof ApiError && placeFieldProblem(err, boxes))) showProblem(general, err);
    } finally {
      button.disabled = false;
    }
  };
  // send shows every failure in the form itself.
  el.addEventListener('submit', (event) => {
    event.preventDefault();
    void send();
  });
  return el;
}

/** A button that runs an action, shows progress, and shows the problem if it fails. */
export function action(label: string, run: () => Promise<void>, cls = 'secondary'): HTMLElement {
  const err = h('span', { role: 'alert', class: 'error' });
  const button = h('button', { type: 'button', class: cls }, label) as HTMLButtonElement;
  const runShowingProblem = async () => {
    err.textContent = '';
    button.disabled = true;
    try {
      await run();
    } catch (e) {
      showProblem(err, e);
    } finally {
      button.disabled = false;
    }
  };
  button.addEventListener('click', () => void runShowingProblem());
  return h('span', { class: 'row' }, button, err);
}
