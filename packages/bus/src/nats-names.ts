/** Maps the subjects and stream names of the system into a namespace (tests) or leaves them (production). */
export interface NatsNames {
  subject(subject: string): string;
  unsubject(subject: string): string;
  stream(name: string): string;
}

export function natsNames(namespace?: string): NatsNames {
  if (!namespace) return { subject: (s) => s, unsubject: (s) => s, stream: (n) => n };
  if (!/^[A-Za-z0-9_-]+$/.test(namespace)) throw new Error(`Invalid bus namespace "${namespace}"`);
  const prefix = `${namespace}.`;
  const streamPrefix = `${namespace.toUpperCase()}_`;
  return {
    subject: (s) => prefix + s,
    unsubject: (s) => (s.startsWith(prefix) ? s.slice(prefix.length) : s),
    stream: (n) => streamPrefix + n,
  };
}
