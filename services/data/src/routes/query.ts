import { dataQuerySchema } from '@meridian/contracts';

/**
 * Query parameters of the data endpoint (data-api-interface 4.1): the contracts' schema, which the
 * gateway's OpenAPI document lists as it is, so the document and this parser cannot disagree.
 */
export { dataQuerySchema };
