/** A DNS host recognised by its name servers, and how to publish the verification record there. */
export interface DnsProvider {
  id: string;
  name: string;
  /** Suffixes (or, when starting with `~`, substrings) of name server host names. */
  patterns: string[];
  help: string;
  docs: string;
}

const TXT = 'Add a TXT record with the name and value shown for your domain';

export const DNS_PROVIDERS: DnsProvider[] = [
  {
    id: 'cloudflare',
    name: 'Cloudflare',
    patterns: ['ns.cloudflare.com'],
    help: `Cloudflare dashboard → your site → DNS → Records → Add record. Type TXT, Name "_meridian-verify", Content the value shown; TTL Auto. ${TXT}.`,
    docs: 'https://developers.cloudflare.com/dns/manage-dns-records/how-to/create-dns-records/',
  },
  {
    id: 'route53',
    name: 'Amazon Route 53',
    patterns: ['~awsdns-'],
    help: 'AWS console → Route 53 → Hosted zones → your zone → Create record. Record name "_meridian-verify", type TXT, value the shown value in double quotes.',
    docs: 'https://docs.aws.amazon.com/Route53/latest/DeveloperGuide/resource-record-sets-creating.html',
  },
  {
    id: 'google',
    name: 'Google Cloud DNS',
    patterns: ['~ns-cloud-', 'googledomains.com'],
    help: 'Google Cloud console → Network services → Cloud DNS → your zone → Add standard. DNS name "_meridian-verify", type TXT, TXT data the shown value.',
    docs: 'https://cloud.google.com/dns/docs/records',
  },
  {
    id: 'azure',
    name: 'Azure DNS',
    patterns: ['~azure-dns.'],
    help: 'Azure portal → DNS zones → your zone → + Record set. Name "_meridian-verify", type TXT, value the shown value.',
    docs: 'https://learn.microsoft.com/azure/dns/dns-operations-recordsets-portal',
  },
  {
    id: 'godaddy',
    name: 'GoDaddy',
    patterns: ['domaincontrol.com'],
    help: 'GoDaddy → My Products → your domain → DNS → Add New Record. Type TXT, Name "_meridian-verify", Value the shown value.',
    docs: 'https://www.godaddy.com/help/add-a-txt-record-19232',
  },
  {
    id: 'namecheap',
    name: 'Namecheap',
    patterns: ['registrar-servers.com'],
    help: 'Namecheap → Domain List → Manage → Advanced DNS → Add New Record. TXT Record, Host "_meridian-verify", Value the shown value.',
    docs: 'https://www.namecheap.com/support/knowledgebase/article.aspx/317/2237/how-do-i-add-txtspfdkimdmarc-records-for-my-domain/',
  },
  {
    id: 'ovh',
    name: 'OVHcloud',
    patterns: ['ovh.net', 'ovh.ca', 'anycast.me'],
    help: 'OVHcloud Control Panel → Web Cloud → Domain names → your domain → DNS zone → Add an entry → TXT. Sub-domain "_meridian-verify", value the shown value.',
    docs: 'https://help.ovhcloud.com/csm/en-dns-edit-dns-zone',
  },
  {
    id: 'gandi',
    name: 'Gandi',
    patterns: ['gandi.net'],
    help: 'Gandi → Domain → your domain → DNS Records → Add. Type TXT, Name "_meridian-verify", Text value the shown value.',
    docs: 'https://docs.gandi.net/en/domain_names/common_operations/dns_records.html',
  },
  {
    id: 'digitalocean',
    name: 'DigitalOcean',
    patterns: ['digitalocean.com'],
    help: 'DigitalOcean control panel → Networking → Domains → your domain → TXT. Hostname "_meridian-verify", Value the shown value.',
    docs: 'https://docs.digitalocean.com/products/networking/dns/how-to/manage-records/',
  },
  {
    id: 'hetzner',
    name: 'Hetzner DNS',
    patterns: ['hetzner.com', 'hetzner.de', 'your-server.de', 'ns.hetzner.com'],
    help: 'Hetzner DNS Console → your zone → Add record. Type TXT, Name "_meridian-verify", Value the shown value.',
    docs: 'https://docs.hetzner.com/dns-console/dns/general/dns-overview/',
  },
  {
    id: 'vercel',
    name: 'Vercel',
    patterns: ['vercel-dns.com'],
    help: 'Vercel dashboard → Domains → your domain → DNS Records → Add. Type TXT, Name "_meridian-verify", Value the shown value.',
    docs: 'https://vercel.com/docs/projects/domains/managing-dns-records',
  },
  {
    id: 'netlify',
    name: 'Netlify DNS',
    patterns: ['nsone.net'],
    help: 'Netlify → Domains → your domain → DNS settings → Add new record. Type TXT, Name "_meridian-verify", Value the shown value.',
    docs: 'https://docs.netlify.com/domains-https/netlify-dns/dns-records/',
  },
  {
    id: 'dnsimple',
    name: 'DNSimple',
    patterns: ['dnsimple.com'],
    help: 'DNSimple → Domains → your domain → DNS → Manage records → Add record → TXT. Name "_meridian-verify", Content the shown value.',
    docs: 'https://support.dnsimple.com/articles/manage-txt-record/',
  },
  {
    id: 'linode',
    name: 'Akamai (Linode) DNS',
    patterns: ['linode.com'],
    help: 'Linode Cloud Manager → Domains → your domain → TXT Record → Add. Hostname "_meridian-verify", Value the shown value.',
    docs: 'https://www.linode.com/docs/products/networking/dns-manager/guides/manage-dns-records/',
  },
  {
    id: 'ionos',
    name: 'IONOS',
    patterns: ['ui-dns.com', 'ui-dns.de', 'ui-dns.org', 'ui-dns.biz'],
    help: 'IONOS → Domains & SSL → your domain → DNS → Add record → TXT. Host name "_meridian-verify", Value the shown value.',
    docs: 'https://www.ionos.com/help/domains/configuring-your-ip-address/adding-a-txt-record/',
  },
];

export const GENERIC_HELP =
  'At the company that hosts your DNS (often your registrar), add a TXT record whose name is "_meridian-verify" under your domain and whose value is the one shown, then ask us to verify. A new record can take a few minutes to be seen.';

const matches = (ns: string, pattern: string) =>
  pattern.startsWith('~') ? ns.includes(pattern.slice(1)) : ns === pattern || ns.endsWith(`.${pattern}`);

/** The provider whose pattern most of the name servers match; undefined when none. */
export function detectProvider(nameServers: string[]): DnsProvider | undefined {
  const hosts = nameServers.map((n) => n.toLowerCase().replace(/\.$/, ''));
  let best: { provider: DnsProvider; count: number } | undefined;
  for (const provider of DNS_PROVIDERS) {
    const count = hosts.filter((h) => provider.patterns.some((p) => matches(h, p))).length;
    if (count > 0 && (!best || count > best.count)) best = { provider, count };
  }
  return best?.provider;
}

/**
 * The all-in-one's demo site: its DNS is the resolver `pnpm start` runs, and `pnpm demo:txt` is
 * that resolver's "add record" form. Offered only where DEMO_SITE is set.
 */
export function demoProviderHelp(record: { name: string; value: string }): {
  provider: Omit<DnsProvider, 'patterns'>;
  help: string;
} {
  return {
    provider: {
      id: 'meridian-demo',
      name: 'Meridian demo resolver (this machine)',
      help: 'Publish the record with the demo:txt command.',
      docs: 'README.md#try-an-audit-offline',
    },
    help: `This is the demo site your own machine serves, so the audit can be tried offline. Publish the record on the demo resolver: npx -y pnpm@10 demo:txt --name ${record.name} --value ${record.value} (with DATA_DIR=… before it when pnpm start runs with one).`,
  };
}
