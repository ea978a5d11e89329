import { parseArgs } from 'node:util';
import { startAdminStandIn } from './server.js';
import type { AdminStandIn } from './stand-in-api.js';

/**
 * Runs the stand-in on its own, for trying the app by hand:
 *   npx tsx src/dev/admin-stand-in/main.ts --port 4020 --shop demo.myshopify.com --token shpat_demo
 * (`--shop`/`--token` may be repeated, in pairs). The command line of print-bridge may wrap this later.
 */
export async function runAdminStandIn(argv: readonly string[]): Promise<AdminStandIn> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      port: { type: 'string', default: '4020' },
      host: { type: 'string', default: '127.0.0.1' },
      shop: { type: 'string', multiple: true, default: [] },
      token: { type: 'string', multiple: true, default: [] },
      'restore-rate': { type: 'string' },
      'maximum-available': { type: 'string' },
      'webhook-url': { type: 'string' },
      'webhook-secret': { type: 'string' },
    },
    strict: true,
  });
  if (values.shop.length !== values.token.length) throw new Error('give --shop and --token in pairs');
  if ((values['webhook-url'] === undefined) !== (values['webhook-secret'] === undefined)) throw new Error('give --webhook-url and --webhook-secret together');
  const accessTokens = Object.fromEntries(values.shop.map((shop, i) => [shop, values.token[i]!]));
  const number = (name: string, raw: string | undefined) => {
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, got ${raw}`);
    return n;
  };
  const restoreRate = number('restore-rate', values['restore-rate']);
  const maximumAvailable = number('maximum-available', values['maximum-available']);
  return startAdminStandIn({
    port: number('port', values.port),
    host: values.host,
    accessTokens,
    bucket: {
      ...(restoreRate !== undefined ? { restoreRate } : {}),
      ...(maximumAvailable !== undefined ? { maximumAvailable } : {}),
    },
    ...(values['webhook-url'] && values['webhook-secret'] ? { webhooks: { url: values['webhook-url'], secret: values['webhook-secret'] } } : {}),
  });
}

const isEntryPoint = process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isEntryPoint) {
  const standIn = await runAdminStandIn(process.argv.slice(2));
  console.log(`Shopify Admin API stand-in on ${standIn.origin} (control surface: ${standIn.origin}/_stand-in/)`);
  const stop = () => void standIn.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
