import { toolEnums, type ToolEnums } from '../domain/catalog-enums.js';
import { servedProducts, type ServedProduct } from '../domain/served-catalog.js';
import type { DataApi } from './data-api.js';

/** How long a catalogue read serves before the next need reads it again (it changes with a deploy). */
export const CATALOG_MAX_AGE_MS = 5 * 60_000;

/** The catalogue the deployment serves, with the tools' enumerations made from it. */
export interface Served {
  products: ServedProduct[];
  enums: ToolEnums;
  /** When it was read: the resources' lastModified. */
  loadedAt: Date;
}

/**
 * GET /v1/catalog through the gateway, read at the first need and again once `maxAgeMs` old. A
 * read that fails keeps the catalogue read before (it changes only with a deploy); with none, the
 * caller is told, rather than offered values nobody serves. Concurrent needs share one read.
 */
export class ServedCatalog {
  private served?: Served;
  private reading?: Promise<Served>;

  constructor(
    private readonly api: DataApi,
    private readonly maxAgeMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async current(): Promise<Served> {
    const served = this.served;
    if (served && this.now() - served.loadedAt.getTime() < this.maxAgeMs) return served;
    this.reading ??= this.read().finally(() => (this.reading = undefined));
    try {
      return await this.reading;
    } catch (err) {
      if (served) return served;
      throw err;
    }
  }

  private async read(): Promise<Served> {
    const answer = await this.api.get('/v1/catalog', {}, {});
    if (!answer.ok) throw new Error(`GET /v1/catalog answered ${answer.refusal.status}`);
    const products = servedProducts(answer.body);
    this.served = { products, enums: toolEnums(products), loadedAt: new Date(this.now()) };
    return this.served;
  }
}
