/**
 * `pnpm demo:txt --name <name> --value <value>`: publishes a TXT record in the demo zone that the
 * all-in-one's resolver answers, as a DNS provider's form publishes one for a real domain (the
 * portal shows the exact command for the demo domain). DATA_DIR as for `pnpm start` (.data).
 */
import { parseArgs } from 'node:util';
import { publishTxt } from './demo-zone.js';

function main(): number {
  const { values } = parseArgs({ options: { name: { type: 'string' }, value: { type: 'string' } } });
  if (!values.name || !values.value) {
    console.error(
      'usage: demo:txt --name _meridian-verify.shop.meridian-demo.test --value meridian-verify=<token>',
    );
    return 2;
  }
  try {
    publishTxt(process.env.DATA_DIR ?? '.data', values.name, values.value);
  } catch (err) {
    console.error(err instanceof Error ? err.message : String(err));
    return 2;
  }
  process.stdout.write(`published TXT ${values.name} "${values.value}" in the demo zone\n`);
  return 0;
}

process.exitCode = main();
