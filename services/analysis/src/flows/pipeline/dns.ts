import { checkedAddress } from '../../adapters/scanner/http.js';
import { evaluateSpf } from '../../adapters/scanner/spf.js';
import { dnsChecks, mailChecks } from '../../domain/checks/dns.js';
import { pass } from '../../domain/checks/finding.js';
import { describe, NothingReachable, type Stage } from './context.js';

/**
 * Addresses, CAA and DNSSEC. A domain with no address the scanner may reach has nothing to audit:
 * the run fails (NothingReachable) rather than reporting on nothing.
 */
export const dnsStage: Stage = {
  name: 'dns',
  async run(ctx) {
    const { resolver } = ctx.options;
    const addresses = await resolver.addresses(ctx.domain).catch((err: unknown) => {
      throw new NothingReachable(`${ctx.domain} could not be resolved: ${describe(err)}`);
    });
    if (addresses.length === 0) throw new NothingReachable(`${ctx.domain} has no A or AAAA record`);
    try {
      await checkedAddress(ctx.options, ctx.domain);
    } catch (err) {
      throw new NothingReachable(
        `${ctx.domain} has no public address the scanner may reach: ${describe(err)}`,
      );
    }
    const [caa, dnssec] = await Promise.all([resolver.caa(ctx.domain), resolver.dnssec(ctx.domain)]);
    return [
      pass('dns.address.public', 'dns', 'The domain resolves to public addresses', addresses.join(', ')),
      ...dnsChecks({ addresses, caa, dnssec }),
    ];
  },
};

/** SPF (with its lookup limit over the include tree), DMARC and MX. */
export const mailStage: Stage = {
  name: 'mail',
  async run(ctx) {
    const { resolver } = ctx.options;
    const [spf, dmarcTxt, mx] = await Promise.all([
      evaluateSpf(ctx.domain, (name) => resolver.txt(name)),
      resolver.txt(`_dmarc.${ctx.domain}`),
      resolver.mx(ctx.domain),
    ]);
    return mailChecks({ spf, dmarc: dmarcTxt.filter((t) => /^v=DMARC1(\s*;|$)/i.test(t.trim())), mx });
  },
};
