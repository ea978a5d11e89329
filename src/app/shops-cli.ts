import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { sql } from 'drizzle-orm';
import { CliError } from '../cli/errors.js';
import { type Config, loadConfig } from '../config.js';
import type { Database } from '../db/database.js';
import { openAppDatabase } from '../db/open.js';
import { type FileProblem, formatFileProblem } from '../mapping/errors.js';
import { MappingRegistry } from '../mapping/registry.js';
import { loadStoreMapping } from '../mapping/store-mapping.js';
import { createQueues } from '../queue/queues.js';
import { createRedis } from '../redis.js';
import { ShopSettingsStore } from '../shops/settings-store.js';
import { OPERATOR_AUTHOR } from '../shops/model.js';
import { connectPrintAccount, postbackSetup, printAccountInput, pushMapping, rollbackMapping, setAppHolds, setPrintMode, type SetupDeps } from '../shops/setup.js';
import { isShopDomain } from '../shopify/webhook-agreement.js';
import type { HoldPolicy } from '../bridge/shopify-holds.js';
import { FULFILLMENT_HOLD_REASONS } from '../shopify/hold-reasons.js';
import { chooseHoldPolicy, holdPolicyInForce, holdPolicyWords, holdsChoice, isRiskChoice, SOURCE_WORDS } from '../shops/hold-policy.js';
import { ShopSessions } from '../shopify/sessions.js';
import { shopifyApiFromConfig } from '../shopify/shopify-api.js';
import { configureAdminApiOrigin } from '../shopify/admin/routing.js';
import { shopSetupDeps } from './shop-setup.js';
import { migrateStoredTokens } from './token-migration.js';
import { registerFulfillmentCommand } from './fulfillment-cli.js';

/**
 * The operator's side of a store's own set-up (DESIGN section 3): `shops list | print-account | postback-url | mode | fulfillment`
 * and `mappings push | versions | rollback`. They change the database; a running app notices within seconds (its
 * account cache and mapping versions are re-read), and orders that waited are looked at again through the queue.
 */
export function registerShopSetupCommands(program: Command, shops: Command): void {
  shops
    .command('list')
    .description("every store: installed or not, print account (the operator's or its own), mode, fulfillment mode, postback URL")
    .action(async () => {
      await withSetup(async ({ settings, config, database }) => {
        const shopify = config.SHOPIFY_API_SECRET ? shopifyApiFromConfig(config) : undefined;
        const sessions = shopify && config.ENCRYPTION_KEY?.length ? new ShopSessions(shopify, database, config.ENCRYPTION_KEY) : undefined;
        const known = new Set([...(await settings.list()).map((s) => s.shop), ...(await knownShops(database))]);
        const rows = [['STORE', 'INSTALLED', 'PRINT ACCOUNT', 'MODE', 'FULFILLMENT', 'MAPPING', 'POSTBACK URL']];
        for (const shop of [...known].sort()) {
          const setup = await settings.get(shop);
          const installed = sessions ? ((await sessions.accessToken(shop).catch(() => undefined)) ? 'yes' : 'no') : '?';
          const account = setup.printAccount ? `own: ${setup.printAccount.sourceAccount} at ${setup.printAccount.baseUrl}` : 'operator (PRINT_API_*)';
          const postback = setup.printAccount || (await settings.hasPostbackToken(shop)) ? (await postbackSetup({ settings, appUrl: config.APP_URL }, shop)).url : 'operator-wide (POSTBACK_TOKEN)';
          rows.push([shop, installed, account, setup.mode, setup.fulfillment, setup.mappingVersion ? `own v${setup.mappingVersion}` : 'files', postback]);
        }
        process.stdout.write(table(rows));
      });
    });

  shops
    .command('migrate-tokens')
    .description("exchanges every stored non-expiring offline token (OAuth installs) for an expiring one; custom app tokens (shops add) are left as they are")
    .option('--dry-run', 'only say which stores have a non-expiring token; nothing is sent to Shopify')
    .action(async (opts: { dryRun?: boolean }) => {
      const config = loadConfig({ require: ['SHOPIFY_API_KEY', 'SHOPIFY_API_SECRET'] });
      if (!config.ENCRYPTION_KEY?.length) throw new CliError('ENCRYPTION_KEY is not set: the stored tokens cannot be read or the new ones stored. Use the key the app runs with.');
      configureAdminApiOrigin(config);
      const database = await openAppDatabase(config).catch((error: Error) => {
        throw new CliError(`Could not open the database: ${error.message}`);
      });
      try {
        const report = await migrateStoredTokens(new ShopSessions(shopifyApiFromConfig(config), database, config.ENCRYPTION_KEY), { dryRun: opts.dryRun });
        for (const line of report.lines) process.stdout.write(`${line}\n`);
        process.stdout.write(`${report.summary}\n`);
        if (opts.dryRun && report.left.length > 0) process.stdout.write('Run without --dry-run to exchange them (Shopify refuses non-expiring offline tokens of public apps from 1 January 2027).\n');
        if (!opts.dryRun && report.left.length > 0) {
          throw new CliError(`${report.left.length} store${report.left.length === 1 ? '' : 's'} still ${report.left.length === 1 ? 'has' : 'have'} a non-expiring token: ${report.left.join(', ')} (see above).`);
        }
      } finally {
        await database.close().catch(() => undefined);
      }
    });

  shops
    .command('print-account')
    .description("gives a store its own print-service account (secret encrypted at rest); checks it with one signed call first")
    .argument('<domain>', 'the store, e.g. acme.myshopify.com')
    .requiredOption('--base-url <url>', '{base_url} of the print service')
    .option('--orders-url <url>', '{orders_url}, where creates go (default: the base URL)')
    .requiredOption('--token <token>', 'access token')
    .requiredOption('--secret <secret>', 'secret key')
    .requiredOption('--account <name>', 'source account name (used to cancel)')
    .option('--destination <name>', "destination (printer) account; wins over the mapping's destination")
    .option('--no-test', 'store it without the signed check call')
    .action(async (domain: string, opts: { baseUrl: string; ordersUrl?: string; token: string; secret: string; account: string; destination?: string; test: boolean }) => {
      const shop = storeDomain(domain);
      const input = printAccountInput.safeParse({ baseUrl: opts.baseUrl, ordersUrl: opts.ordersUrl, token: opts.token, secret: opts.secret, sourceAccount: opts.account, destination: opts.destination });
      if (!input.success) throw new CliError(input.error.issues.map((i) => `--${String(i.path[0]).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}: ${i.message}`).join('\n'));
      await withSetup(async ({ setup }) => {
        const outcome = await connectPrintAccount(setup, shop, input.data, { test: opts.test });
        if (outcome.kind === 'refused') throw new CliError(`Nothing was stored for ${shop}: ${outcome.check.message}`);
        process.stdout.write(
          `${shop} now uses its own print-service account (${input.data.sourceAccount} at ${input.data.baseUrl}).\n` +
            (outcome.check ? `${outcome.check.message}\n` : 'Not checked (--no-test).\n') +
            `Mode: ${outcome.setup.mode}${outcome.setup.mode === 'test' ? ' (orders are validated, never created, until: print-bridge shops mode ' + shop + ' live)' : ''}.\n` +
            `Set up the print service's triggers with: print-bridge shops postback-url ${shop}\n`,
        );
      });
    });

  shops
    .command('postback-url')
    .description("the store's own postback URL and the trigger templates for the print service; --rotate issues a new token (the old one works 24 h more)")
    .argument('<domain>', 'the store')
    .option('--rotate', 'issue a new token; the previous one keeps working for 24 hours')
    .option('--json', 'the triggers as JSON (the emulator --triggers format)')
    .action(async (domain: string, opts: { rotate?: boolean; json?: boolean }) => {
      const shop = storeDomain(domain);
      await withSetup(async ({ settings, config }) => {
        const result = await postbackSetup({ settings, appUrl: config.APP_URL }, shop, { rotate: opts.rotate });
        if (opts.json) {
          process.stdout.write(`${JSON.stringify(result.triggers, null, 2)}\n`);
          return;
        }
        process.stdout.write(`Postback URL of ${shop}:\n  ${result.url}\n`);
        if (result.previousValidUntil) process.stdout.write(`The previous URL keeps working until ${result.previousValidUntil}: change the triggers before then.\n`);
        process.stdout.write('\nOne trigger per event at the print service: method POST, header Content-Type: application/json, and this body template:\n');
        for (const trigger of result.triggers) process.stdout.write(`\n${trigger.event}\n  ${trigger.template}\n`);
      });
    });

  shops
    .command('mode')
    .description('test: orders are mapped and validated at the print service, never created; live: created')
    .argument('<domain>', 'the store')
    .argument('<mode>', 'test or live')
    .action(async (domain: string, mode: string) => {
      const shop = storeDomain(domain);
      if (mode !== 'test' && mode !== 'live') throw new CliError(`mode must be test or live, not "${mode}".`);
      await withSetup(async ({ setup }) => {
        const outcome = await setPrintMode(setup, shop, mode, { force: true });
        if (outcome.kind !== 'done') return;
        if (outcome.missing.length > 0) process.stderr.write(`Warning: the onboarding checklist is not done for ${shop}: ${outcome.missing.join('; ')}.\n`);
        process.stdout.write(`${shop} is in ${mode} mode.${mode === 'live' ? ' Orders kept back in test mode go out now, once each.' : ' Orders are validated at the print service and not created.'}\n`);
      });
    });

  shops
    .command('holds')
    .description("on (the default): print-bridge's own waits (edit window, mapping problem, test mode, risk) show in Shopify as a fulfillment hold of the app's; off: none, and those placed are released")
    .argument('<domain>', 'the store')
    .argument('<switch>', 'on or off')
    .action(async (domain: string, value: string) => {
      const shop = storeDomain(domain);
      if (value !== 'on' && value !== 'off') throw new CliError(`the switch must be on or off, not "${value}".`);
      await withSetup(async ({ setup }) => {
        await setAppHolds(setup, shop, value === 'on');
        process.stdout.write(
          value === 'on'
            ? `${shop}: print-bridge's waits show in Shopify as a hold of the app's (handle print-bridge) on the fulfillment orders it will print.\n`
            : `${shop}: print-bridge places no holds in Shopify; those it placed on waiting orders are released.\n`,
        );
      });
    });

  shops
    .command('hold-policy')
    .description("which of Shopify's holds and risk recommendations keep the store's orders from the printer (the Settings page's choice, which wins over the mapping's submit.wait_for_holds / wait_for_risk); without options, the policy in force")
    .argument('<domain>', 'the store')
    .option('--holds <holds>', `all, none, or the reasons waited for: REASON,REASON (${FULFILLMENT_HOLD_REASONS.join(', ')})`)
    .option('--risk <risk>', 'cancel (wait while Shopify recommends cancelling), investigate (also while it recommends investigating) or none')
    .option('--clear', "forget the store's choice: the mapping's setting (or the default) applies again")
    .action(async (domain: string, opts: { holds?: string; risk?: string; clear?: boolean }) => {
      const shop = storeDomain(domain);
      if (opts.clear && (opts.holds || opts.risk)) throw new CliError('--clear goes alone: it forgets the choice, --holds and --risk make one.');
      if (opts.risk !== undefined && !isRiskChoice(opts.risk)) throw new CliError(`--risk must be cancel, investigate or none, not "${opts.risk}".`);
      const holds = opts.holds === undefined ? undefined : holdsOption(opts.holds);
      await withSetup(async ({ setup }) => {
        const current = await holdPolicyInForce(setup, shop);
        if (opts.clear || holds !== undefined || opts.risk !== undefined) {
          // What is not given stays as it is in force.
          const policy = opts.clear ? undefined : { waitForHolds: holds ?? current.policy.waitForHolds, waitForRisk: (opts.risk as HoldPolicy['waitForRisk'] | undefined) ?? current.policy.waitForRisk };
          const outcome = await chooseHoldPolicy(setup, shop, policy);
          process.stdout.write(`${shop}: ${holdPolicyWords(outcome.after.policy)} (${SOURCE_WORDS[outcome.after.source]})\n`);
          if (outcome.lookedAgain) process.stdout.write('Orders waiting only for what no longer keeps them back go to the printer now.\n');
          return;
        }
        process.stdout.write(`${shop}: ${holdPolicyWords(current.policy)} (${SOURCE_WORDS[current.source]})\n`);
      });
    });

  registerFulfillmentCommand(shops);

  const mappings = program.commands.find((c) => c.name() === 'mappings');
  if (!mappings) throw new Error('register the mappings commands first');

  mappings
    .command('push')
    .description("checks a mapping file and stores it as a store's next version (current from now on)")
    .argument('<file>', 'a mapping file (YAML)')
    .requiredOption('--shop <domain>', 'the store')
    .option('--note <text>', 'why, shown in the version list')
    .action(async (file: string, opts: { shop: string; note?: string }) => {
      const shop = storeDomain(opts.shop);
      let yaml: string;
      try {
        yaml = readFileSync(file, 'utf8');
      } catch (error) {
        throw new CliError(`Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
      }
      // Checked before anything is opened: problems come out as `FILE:LINE:COL message` lines, each whole on a line of
      // its own (an editor's problem matcher reads them), then the summary.
      const checked = loadStoreMapping(yaml, shop);
      if (!checked.ok) refuseWithProblems(file, checked.problems);
      await withSetup(async ({ setup }) => {
        const outcome = await pushMapping(setup, shop, yaml, OPERATOR_AUTHOR, opts.note);
        if (outcome.kind === 'problems') refuseWithProblems(file, outcome.problems);
        process.stdout.write(`Stored as version ${outcome.version} of ${shop}'s mapping; it is in use from now on.\n`);
      });
    });

  mappings
    .command('versions')
    .description("a store's mapping versions: who, when, note")
    .requiredOption('--shop <domain>', 'the store')
    .action(async (opts: { shop: string }) => {
      const shop = storeDomain(opts.shop);
      await withSetup(async ({ settings }) => {
        const [versions, current] = await Promise.all([settings.mappingVersions(shop), settings.get(shop)]);
        if (versions.length === 0) {
          process.stdout.write(`${shop} has no mapping of its own: the mapping files serve it.\n`);
          return;
        }
        const rows = [['VERSION', 'SAVED', 'BY', 'NOTE']];
        for (const v of versions) rows.push([`${v.version}${v.version === current.mappingVersion ? ' (current)' : ''}`, v.createdAt, v.author, v.note ?? '']);
        process.stdout.write(table(rows));
      });
    });

  mappings
    .command('rollback')
    .description('makes an earlier mapping version of a store current again')
    .requiredOption('--shop <domain>', 'the store')
    .argument('<version>', 'the version number')
    .action(async (versionText: string, opts: { shop: string }) => {
      const shop = storeDomain(opts.shop);
      const version = Number(versionText);
      if (!Number.isInteger(version) || version < 1) throw new CliError(`VERSION must be a version number (see mappings versions --shop ${shop}).`);
      await withSetup(async ({ setup }) => {
        const outcome = await rollbackMapping(setup, shop, version);
        if (outcome.kind === 'unknown') throw new CliError(`${shop} has no mapping version ${version} (see mappings versions --shop ${shop}).`);
        if (outcome.kind === 'problems') throw new CliError(outcome.problems.map(formatFileProblem).join('\n'));
        process.stdout.write(`Version ${version} is ${shop}'s mapping again.\n`);
      });
    });
}

/** `--holds`: all, none, or reasons separated by commas (in Shopify's spelling, any case). */
function holdsOption(value: string): HoldPolicy['waitForHolds'] {
  const text = value.trim();
  if (text === 'all' || text === 'none') return text;
  const reasons = text.split(',').map((r) => r.trim().toUpperCase()).filter(Boolean);
  if (reasons.length === 0) throw new CliError('--holds must be all, none, or at least one reason.');
  const choice = holdsChoice('only', reasons);
  if (typeof choice === 'object' && 'refused' in choice) throw new CliError(`--holds: ${choice.refused}`);
  return choice;
}

export function storeDomain(value: string): string {
  const shop = value.trim().toLowerCase();
  const full = shop.includes('.') ? shop : `${shop}.myshopify.com`;
  if (!isShopDomain(full)) throw new CliError(`"${value}" is not a store domain; expected something like acme.myshopify.com.`);
  return full;
}

async function withSetup(work: (context: { config: Config; database: Database; settings: ShopSettingsStore; setup: SetupDeps }) => Promise<void>): Promise<void> {
  const config = loadConfig({ require: [] });
  const database = await openAppDatabase(config).catch((error: Error) => {
    throw new CliError(`Could not open the database: ${error.message}`);
  });
  const redis = createRedis(config.REDIS_URL, 'request');
  const queues = createQueues(redis, config.REDIS_PREFIX);
  const registry = new MappingRegistry({ dir: config.MAPPINGS_DIR, mapOptions: { artwork: { hosts: config.ARTWORK_HOSTS } } });
  registry.load();
  const settings = new ShopSettingsStore(database, config.ENCRYPTION_KEY ?? []);
  const setup = shopSetupDeps({ config, settings, orders: queues.orders, shopifyJobs: queues.shopify, registry, operator: true });
  // The running workers take the look at waiting orders; a Redis that does not answer must not hang the command.
  const unreachable = (then: string) =>
    new Promise<void>((_, reject) => setTimeout(() => reject(new CliError(`Redis at ${config.REDIS_URL} is not reachable: the change is stored, and ${then}`)), 5_000).unref());
  const { reexamine, resyncAppHolds } = setup;
  setup.reexamine = (shop, cause) => Promise.race([reexamine(shop, cause), unreachable("the app's periodic sweep releases waiting orders")]);
  if (resyncAppHolds) setup.resyncAppHolds = (shop) => Promise.race([resyncAppHolds(shop), unreachable("each waiting order's hold follows at its next sync")]);
  const ownVersion = await settings.currentMappings().catch(() => []);
  for (const current of ownVersion) {
    const loaded = loadStoreMapping(current.yaml, current.shop, current.version);
    if (loaded.ok) registry.setStoreMapping(current.shop, { version: current.version, mapping: loaded.mapping });
  }
  try {
    await work({ config, database, settings, setup });
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError((error as Error).message);
  } finally {
    registry.close();
    await database.close().catch(() => undefined);
    await queues.close().catch(() => undefined);
    redis.disconnect();
  }
}

async function knownShops(database: Database): Promise<string[]> {
  
  const rows = await database.rows<{ shop: string }>(sql`SELECT shop FROM shops UNION SELECT shop FROM shopify_sessions`);
  return rows.map((r) => r.shop);
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n') + '\n';
}

/**
 * A mapping file refused: each problem a `FILE:LINE:COL message` line of its own on stderr (where a refused push has
 * always said why; the first used to carry the `print-bridge: ` prefix), then exit 1 saying nothing was stored.
 */
function refuseWithProblems(file: string, problems: readonly Omit<FileProblem, 'file'>[]): never {
  for (const p of problems) process.stderr.write(`${formatFileProblem({ ...p, file })}\n`);
  throw new CliError(`${problems.length} problem(s) in ${file}; nothing was stored`);
}
