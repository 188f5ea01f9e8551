/**
 * A request's headers as node parses them: lower-case names, a repeated header as a list. The
 * shape of node:http's IncomingHttpHeaders for the headers the rules read, so that domain/ stays
 * free of node:http.
 */
export interface RequestHeaders {
  readonly [name: string]: string | string[] | undefined;
  readonly authorization?: string;
  readonly host?: string;
  readonly origin?: string;
  readonly 'content-length'?: string;
  readonly 'content-type'?: string;
  readonly 'transfer-encoding'?: string;
}
