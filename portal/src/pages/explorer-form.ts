import { h, replace, uid } from './dom.js';
import { nameOf } from './explorer-words.js';

/** A metric of `GET /v1/catalog` as the explorer reads it. */
interface CatalogMetric {
  metric: string;
  path: string;
  value_shape: string;
  unit: string;
  cadence: string;
  series: boolean;
  status: string;
  min_tier: string;
  description: string;
  entities?: string[];
  combined_entities?: string[];
}

interface CatalogProduct {
  product: string;
  min_tier: string;
  sources: string[];
  entities: string[];
  default_entity?: string;
  venue_entities?: Record<string, string[]>;
  licence?: string;
  metrics: CatalogMetric[];
}

export interface CatalogCategory {
  category: string;
  products: CatalogProduct[];
}

/** The source choice that reads every venue listing the entity, one series each. */
export const EACH_VENUE = '*';

/** One question to the data endpoint, chosen by name from the catalogue. */
export interface Question {
  product: CatalogProduct;
  metric: CatalogMetric;
  entity: string;
  /** '' for the combined value, a venue, or EACH_VENUE. */
  source: string;
  series: boolean;
  interval: string;
}

const INTERVALS = ['1m', '5m', '15m', '30m', '1h', '4h', '1d', '1s'];

function select(label: string, options: Array<[string, string]>, value?: string): HTMLSelectElement {
  const el = h('select', { id: uid('f'), name: label }) as HTMLSelectElement;
  for (const [v, text] of options) el.append(h('option', { value: v }, text));
  if (value !== undefined && options.some(([v]) => v === value)) el.value = value;
  return el;
}

const labelled = (text: string, control: HTMLElement) => h('label', { for: control.id }, text, control);

/** The venues listing `entity`, and whether the metric answers it without a source. */
function venuesFor(product: CatalogProduct, metric: CatalogMetric, entity: string) {
  const venues = product.venue_entities
    ? Object.entries(product.venue_entities)
        .filter(([, listed]) => listed.includes(entity))
        .map(([venue]) => venue)
    : product.sources;
  const combined = !metric.combined_entities || metric.combined_entities.includes(entity);
  return { venues, combined };
}

/** What a metric is, from the catalogue: its description, unit, cadence and minimum plan. */
function metricCard(product: CatalogProduct, metric: CatalogMetric): HTMLElement {
  return h(
    'div',
    { class: 'card metric-card', 'data-testid': 'metric-card' },
    h('p', {}, metric.description),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Unit'),
      h('dd', {}, metric.unit),
      h('dt', {}, 'Cadence'),
      h('dd', {}, metric.cadence),
      h('dt', {}, 'Minimum plan'),
      h('dd', { 'data-testid': 'min-plan' }, metric.min_tier),
      h('dt', {}, 'Shape'),
      h('dd', {}, metric.series ? `${metric.value_shape}, with a history` : metric.value_shape),
      product.licence ? [h('dt', {}, 'Licence'), h('dd', {}, product.licence)] : null,
    ),
  );
}

/** The venue and interval chosen before the entity changed, kept where the new entity has them. */
interface Kept {
  source?: string;
  interval?: string;
}

/** The choices of one metric (entity, venue, interval, series) and how to read the question they make. */
function metricChoices(
  product: CatalogProduct,
  metric: CatalogMetric,
  entityValue: string | undefined,
  onEntity: (entity: string, kept: Kept) => void,
  kept: Kept = {},
): { nodes: Array<HTMLElement | null>; read: () => Question } {
  const entities = metric.entities ?? product.entities;
  const entity = entities.length
    ? select(
        'entity',
        entities.map((e) => [e, e]),
        entityValue ?? product.default_entity,
      )
    : null;
  const { venues, combined } = venuesFor(product, metric, entity?.value ?? '');
  const sourceOptions: Array<[string, string]> = [
    ...(combined
      ? [['', product.sources.length > 1 ? 'All venues, combined' : 'Default'] as [string, string]]
      : []),
    ...venues.map((v): [string, string] => [v, v]),
    ...(metric.series && venues.length > 1
      ? [[EACH_VENUE, 'Each venue, side by side'] as [string, string]]
      : []),
  ];
  const source =
    product.sources.length > 1 || !combined ? select('source', sourceOptions, kept.source) : null;
  const seriesBox = h('input', { type: 'checkbox', id: uid('f'), name: 'series' }) as HTMLInputElement;
  const asSeries = metric.series && metric.value_shape !== 'series';
  const interval =
    metric.metric === 'ohlcv'
      ? select(
          'interval',
          INTERVALS.map((i) => [i, i]),
          kept.interval ?? '1m',
        )
      : null;
  if (entity)
    entity.onchange = () => onEntity(entity.value, { source: source?.value, interval: interval?.value });
  return {
    nodes: [
      entity ? labelled('Entity', entity) : null,
      source ? labelled('Venue', source) : null,
      interval ? labelled('Bar interval', interval) : null,
      asSeries
        ? h('label', { class: 'check', for: seriesBox.id }, seriesBox, 'Its history (a series)')
        : null,
    ],
    read: () => ({
      product,
      metric,
      entity: entity?.value ?? '',
      source: source?.value ?? '',
      series: asSeries && seriesBox.checked,
      interval: interval?.value ?? '',
    }),
  };
}

/**
 * The explorer's question form, as the docs of a data vendor: category, product and metric by name
 * (with what the metric is), then its entity and venue from the catalogue, never typed.
 */
export function questionForm(
  categories: CatalogCategory[],
  ask: (q: Question) => Promise<void>,
): HTMLElement {
  const live = categories
    .map((c) => ({ ...c, products: c.products.filter((p) => p.metrics.some((m) => m.status === 'live')) }))
    .filter((c) => c.products.length > 0);
  const category = select(
    'category',
    live.map((c) => [c.category, nameOf(c.category)]),
  );
  const slots = { product: h('div'), metric: h('div'), card: h('div'), entity: h('div') };
  let read: (() => Question) | null = null;

  const refreshParts = (
    product: CatalogProduct,
    metric: CatalogMetric,
    entityValue?: string,
    kept?: Kept,
  ) => {
    replace(slots.card, metricCard(product, metric));
    const again = (e: string, k: Kept) => refreshParts(product, metric, e, k);
    const choices = metricChoices(product, metric, entityValue, again, kept);
    replace(slots.entity, ...choices.nodes);
    read = choices.read;
  };

  const refreshMetric = (product: CatalogProduct) => {
    const metrics = product.metrics.filter((m) => m.status === 'live');
    const metric = select(
      'metric',
      metrics.map((m) => [m.metric, `${nameOf(m.metric)} (${m.min_tier} plan)`]),
    );
    metric.onchange = () =>
      refreshParts(
        product,
        metrics.find((m) => m.metric === metric.value)!,
      );
    replace(slots.metric, labelled('Metric', metric));
    refreshParts(product, metrics[0]!);
  };

  const refreshProduct = () => {
    const products = live.find((c) => c.category === category.value)!.products;
    const product = select(
      'product',
      products.map((p) => [p.product, nameOf(p.product)]),
    );
    product.onchange = () => refreshMetric(products.find((p) => p.product === product.value)!);
    replace(slots.product, labelled('Product', product));
    refreshMetric(products[0]!);
  };
  category.onchange = refreshProduct;
  refreshProduct();

  const button = h('button', { type: 'submit' }, 'Show data');
  const form = h(
    'form',
    { class: 'explorer-form', 'aria-label': 'Question' },
    labelled('Category', category),
    slots.product,
    slots.metric,
    slots.card,
    slots.entity,
    button,
  ) as HTMLFormElement;
  form.onsubmit = (e: Event) => {
    e.preventDefault();
    if (!read) return;
    (button as HTMLButtonElement).disabled = true;
    void ask(read()).finally(() => ((button as HTMLButtonElement).disabled = false));
  };
  return form;
}
