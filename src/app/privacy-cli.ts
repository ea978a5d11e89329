import type { Command } from 'commander';
import { DataRequests } from '../storage/data-requests.js';
import { CliError } from '../cli/errors.js';
import { loadConfig } from '../config.js';
import { openAppDatabase } from '../db/open.js';

/**
 * `print-bridge data-requests list|show`: the operator's side of `customers/data_request`, the same reports the
 * merchant downloads from the app's Customer data page.
 */
export function registerDataRequestCommands(program: Command): void {
  const command = program.command('data-requests').description("customers' data requests (customers/data_request): the reports, kept 30 days");

  command
    .command('list')
    .description('the reports of the last 30 days, newest first')
    .option('--shop <domain>', 'one store only')
    .action(async (opts: { shop?: string }) => {
      await withRequests(async (requests) => {
        const found = await requests.list(opts.shop?.trim().toLowerCase());
        if (found.length === 0) return void process.stdout.write('No data request in the last 30 days.\n');
        for (const r of found) process.stdout.write(`${r.createdAt}  ${r.shop}  ${r.requestId}  ${r.orders} order(s)  kept until ${r.expiresAt}\n`);
      });
    });

  command
    .command('show')
    .description('prints one report as JSON (what print-bridge holds about the customer\'s orders)')
    .argument('<domain>', 'the store, e.g. acme.myshopify.com')
    .argument('<request-id>', 'the data request id (data_request.id of the webhook)')
    .action(async (domain: string, requestId: string) => {
      await withRequests(async (requests) => {
        const shop = domain.trim().toLowerCase();
        const report = await requests.get(shop, requestId);
        if (report === undefined) throw new CliError(`No data request ${requestId} of ${shop} is kept (unknown, older than 30 days, or redacted).`);
        process.stdout.write(`${JSON.stringify({ shop, requestId, report }, null, 2)}\n`);
      });
    });
}

async function withRequests(run: (requests: DataRequests) => Promise<void>): Promise<void> {
  const config = loadConfig();
  const database = await openAppDatabase(config).catch((error: Error) => {
    throw new CliError(error.message);
  });
  try {
    await run(new DataRequests(database));
  } finally {
    await database.close();
  }
}
