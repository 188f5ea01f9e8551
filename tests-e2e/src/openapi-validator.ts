import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

type Json = Record<string, unknown>;

// ajv-formats is CommonJS: its default export arrives as the module object under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => void;

/**
 * Validates answers against the schemas a published OpenAPI 3.1 document gives them, with a real
 * JSON Schema 2020-12 validator: the document is registered whole, so its `$ref`s resolve as any
 * client's would. OpenAPI's own keywords (example, x-*) are allowed, nothing is coerced.
 */
export class OpenApiValidator {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly document: Json) {
    addFormats(this.ajv);
    this.ajv.addSchema({ ...document, $id: 'openapi.json' });
  }

  /** The errors of `body` against the answer `path` `method` documents for `status`; [] when valid. */
  errors(path: string, method: string, status: number, contentType: string, body: unknown): string[] {
    const pointer = this.answerPointer(path, method, status, contentType);
    if (!pointer) return [`no schema for ${method.toUpperCase()} ${path} ${status} ${contentType}`];
    let validate = this.compiled.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `openapi.json#${pointer}` });
      this.compiled.set(pointer, validate);
    }
    if (validate(body)) return [];
    return (validate.errors ?? []).map(
      (e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`,
    );
  }

  /** The JSON pointer of the schema of that answer, following a `$ref` to a shared response. */
  private answerPointer(path: string, method: string, status: number, contentType: string) {
    const paths = this.document.paths as Record<string, Record<string, Json>>;
    const responses = paths[path]?.[method]?.responses as Record<string, Json> | undefined;
    const key = String(status) in (responses ?? {}) ? String(status) : 'default';
    let response = responses?.[key];
    let pointer = `/paths/${escape(path)}/${method}/responses/${key}`;
    const ref = response?.$ref;
    if (typeof ref === 'string') {
      pointer = ref.slice(1);
      response = (this.document.components as Record<string, Record<string, Json>>).responses![
        ref.split('/').at(-1)!
      ];
    }
    const content = response?.content as Record<string, Json> | undefined;
    if (!content?.[contentType]?.schema) return undefined;
    return `${pointer}/content/${escape(contentType)}/schema`;
  }
}

const escape = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');
