/** What a cursor of this server is bound to: the tool and the arguments that choose the rows. */
export function scopeOf(tool: string, args: Record<string, unknown>): string {
  const { cursor: _cursor, max_response_tokens: _budget, ...rest } = args;
  const sorted = Object.keys(rest)
    .sort()
    .map((k) => [k, rest[k]]);
  return `${tool}:${JSON.stringify(sorted)}`;
}
