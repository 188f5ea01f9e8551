import { randomBytes, randomUUID } from 'node:crypto';
import { normalizeHostname, ok, refuse, type Result } from '@meridian/contracts';
import type { AnalysisRefusal } from '../domain/refusals.js';
import {
  domainOf,
  domainsOf,
  ensureDomain,
  recordCheck,
  type DomainRow,
} from '../db/repositories/domains.js';
import { DNS_PROVIDERS, GENERIC_HELP, demoProviderHelp, detectProvider } from '../domain/dns-providers.js';
import { proves, verificationRecord } from '../domain/verification.js';
import type { AnalysisDeps } from '../deps.js';

/** A domain as its owner sees it. */
export function domainView(row: DomainRow) {
  return {
    domain: row.hostname,
    status: row.verified_at ? ('verified' as const) : ('pending' as const),
    verified: row.verified_at !== null,
    verified_at: row.verified_at?.toISOString() ?? null,
    checked_at: row.checked_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    verification: verificationRecord(row.hostname, row.token),
  };
}

/** Adds a domain for verification with a fresh 256-bit token; adding it again answers the same row. */
export async function addDomain(
  deps: AnalysisDeps,
  accountId: string,
  input: string,
  now = new Date(),
): Promise<Result<{ row: DomainRow; created: boolean }, AnalysisRefusal>> {
  const hostname = normalizeHostname(input);
  if (!hostname.ok) return hostname;
  return ok(
    await ensureDomain(deps.db, {
      id: randomUUID(),
      account_id: accountId,
      hostname: hostname.value,
      token: randomBytes(32).toString('base64url'),
      created_at: now,
      verified_at: null,
      checked_at: null,
    }),
  );
}

export const listDomains = (deps: AnalysisDeps, accountId: string) => domainsOf(deps.db, accountId);

/** The caller's domain by the name given; not_found for a domain of another account or none. */
export async function ownDomain(
  deps: AnalysisDeps,
  accountId: string,
  input: string,
): Promise<Result<DomainRow, AnalysisRefusal>> {
  const hostname = normalizeHostname(input);
  if (!hostname.ok) return hostname;
  const row = await domainOf(deps.db, accountId, hostname.value);
  if (!row) return refuse('not_found', `No domain ${hostname.value} in this account; add it first.`);
  return ok(row);
}

/**
 * Looks up the TXT record through the configured resolvers and records the outcome: a domain
 * whose record is gone is no longer verified. A resolver failure is a 503, not a verdict.
 */
export async function checkOwnership(
  deps: AnalysisDeps,
  domain: DomainRow,
  now = new Date(),
): Promise<Result<{ row: DomainRow; found: boolean }, AnalysisRefusal>> {
  let txt: string[][];
  try {
    txt = await deps.dns.txt(verificationRecord(domain.hostname, domain.token).name);
  } catch (err) {
    deps.logger.warn({ err, domain: domain.hostname }, 'verification lookup failed');
    return refuse('service_unavailable', 'The DNS resolvers did not answer; try again shortly.');
  }
  const found = proves(txt, domain.token);
  return ok({ row: await recordCheck(deps.db, domain.id, found, now), found });
}

/** The DNS host of the domain's zone, from its NS records, with setup help for it. */
export async function dnsProviderOf(deps: AnalysisDeps, domain: DomainRow) {
  const record = verificationRecord(domain.hostname, domain.token);
  if (deps.demoSite?.host === domain.hostname) {
    const demo = demoProviderHelp(record);
    return ok({
      domain: domain.hostname,
      zone: domain.hostname,
      name_servers: [],
      provider: { id: demo.provider.id, name: demo.provider.name, docs: demo.provider.docs },
      help: demo.help,
      record,
      known_providers: DNS_PROVIDERS.map((p) => p.name),
    });
  }
  let zone: { zone: string; nameServers: string[] } | undefined;
  try {
    zone = await deps.dns.zoneNameServers(domain.hostname);
  } catch (err) {
    deps.logger.warn({ err, domain: domain.hostname }, 'NS lookup failed');
    return refuse('service_unavailable', 'The DNS resolvers did not answer; try again shortly.');
  }
  const provider = zone ? detectProvider(zone.nameServers) : undefined;
  return ok({
    domain: domain.hostname,
    zone: zone?.zone ?? null,
    name_servers: zone?.nameServers.map((n) => n.toLowerCase()).sort() ?? [],
    provider: provider ? { id: provider.id, name: provider.name, docs: provider.docs } : null,
    help: provider?.help ?? GENERIC_HELP,
    record,
    known_providers: DNS_PROVIDERS.map((p) => p.name),
  });
}
