import { Option, type Command } from 'commander';
import { z } from 'zod';
import { CliError } from '../../cli/errors.js';
import { createLogger } from '../../logger.js';
import { SCHEMA_PROFILES } from '../../print-service/schema.js';
import { DEFAULT_ACCOUNTS, loadAccountsFile, parseAccounts, type EmulatorAccount } from './accounts.js';
import { EmulatorSetupError } from './config-files.js';
import { FETCH_MODES } from './fetcher.js';
import { DEFAULT_DELAYS } from './processor.js';
import { DEFAULT_DELIVERY, DEFAULT_EMULATOR_PROFILE, startEmulator, type EmulatorOptions, type RunningEmulator } from './server.js';
import { EVENT_NAMES, loadTriggersFile } from './triggers.js';

export const DEFAULT_EMULATOR_PORT = 4010;

const port = z.coerce.number({ error: 'must be a port number' }).int('must be a whole number').min(0).max(65535, 'must be from 0 to 65535');
const ms = z.coerce.number({ error: 'must be a number of milliseconds' }).int('must be a whole number of milliseconds').min(0, 'must be 0 or more');
const rate = z.coerce.number({ error: 'must be a number from 0 to 1' }).min(0, 'must be from 0 to 1').max(1, 'must be from 0 to 1');

const flagsSchema = z.object({
  port: port.default(DEFAULT_EMULATOR_PORT),
  ordersPort: port.optional(),
  host: z.string().min(1, 'must not be empty').default('127.0.0.1'),
  accounts: z.string().optional(),
  triggers: z.string().optional(),
  profile: z.enum(SCHEMA_PROFILES as ['strict', 'lenient']).default(DEFAULT_EMULATOR_PROFILE),
  fetch: z.enum(FETCH_MODES as ['simulated', 'real']).default('simulated'),
  fetchTimeout: ms.default(10_000),
  speed: z.coerce.number({ error: 'must be a number' }).min(0, 'must be 0 or more').default(1),
  manual: z.boolean().default(false),
  receivedDelay: ms.optional(),
  printReadyDelay: ms.optional(),
  shipDelay: ms.optional(),
  failRate: rate.default(0),
  dropRate: rate.default(0),
  seed: z.coerce.number({ error: 'must be a whole number' }).int('must be a whole number').optional(),
  deliveryAttempts: z.coerce.number({ error: 'must be a whole number' }).int('must be a whole number').min(1, 'must be 1 or more').default(DEFAULT_DELIVERY.maxAttempts),
  deliveryBackoff: ms.default(DEFAULT_DELIVERY.baseDelayMs),
  deliveryTimeout: ms.default(DEFAULT_DELIVERY.timeoutMs),
  quiet: z.boolean().default(false),
});
type Flags = z.infer<typeof flagsSchema>;

/** `print-bridge emulator`: the print-service emulator of DESIGN section 6 (docs/emulator.md). */
export function registerEmulatorCommand(program: Command): void {
  program
    .command('emulator')
    .description(
      'Run the print-service emulator: every endpoint of the print service with signature checks, asynchronous ' +
        'processing, trigger postbacks, and test hooks under /_emulator (docs/emulator.md).',
    )
    .option('--port <n>', `port of {base_url}, every endpoint (0: any free port)`, String(DEFAULT_EMULATOR_PORT))
    .option('--orders-port <n>', 'port of {orders_url}, create only (default: the same port as --port)')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--accounts <file>', 'JSON array of accounts {name, token, secret, accountId, destinations?, carriers?} (default: the demo account)')
    .option('--triggers <file>', `JSON array of triggers {event, url, template, headers?}; event is one of: ${EVENT_NAMES.join(', ')}`)
    .addOption(new Option('--profile <profile>', 'order schema profile used to check orders (lenient: the interface\'s minimum valid order is valid; strict: the later forms\' fields required too)').choices(SCHEMA_PROFILES).default(DEFAULT_EMULATOR_PROFILE))
    .addOption(
      new Option('--fetch <mode>', 'file fetching: simulated (a path containing "fail" fails) or real (HTTP GET)')
        .choices(FETCH_MODES)
        .default('simulated'),
    )
    .option('--fetch-timeout <ms>', 'time-out of one real file fetch', '10000')
    .option(
      '--speed <factor>',
      `divides the default stage delays (${DEFAULT_DELAYS.receivedMs} / ${DEFAULT_DELAYS.printReadyMs} / ${DEFAULT_DELAYS.shipMs} ms); 10 = ten times faster; 0 = manual`,
      '1',
    )
    .option('--manual', 'no automatic processing: orders move only through POST /_emulator/orders/:id/advance')
    .option('--received-delay <ms>', 'stored → Order Received or Order Submission Error (overrides --speed)')
    .option('--print-ready-delay <ms>', 'received → file fetching, then Order Print Ready or Order Errored (overrides --speed)')
    .option('--ship-delay <ms>', 'print ready → each Shipment Shipped, one shipment after another (overrides --speed)')
    .option('--fail-rate <r>', 'share of creates answered 503 before storing (0 to 1)', '0')
    .option('--drop-rate <r>', 'share of creates stored and then answered with a dropped connection (0 to 1)', '0')
    .option('--seed <n>', 'seed of the random choices of --fail-rate and --drop-rate (repeatable runs)')
    .option('--delivery-attempts <n>', 'attempts per trigger delivery before giving up', String(DEFAULT_DELIVERY.maxAttempts))
    .option('--delivery-backoff <ms>', 'wait before the second delivery attempt; doubles each time', String(DEFAULT_DELIVERY.baseDelayMs))
    .option('--delivery-timeout <ms>', 'time-out of one delivery attempt', String(DEFAULT_DELIVERY.timeoutMs))
    .option('--quiet', 'log warnings and errors only')
    .action(async (raw: Record<string, unknown>) => {
      const flags = parseFlags(raw);
      const options = toOptions(flags);
      let emulator: RunningEmulator;
      try {
        emulator = await startEmulator(options);
      } catch (error) {
        const err = error as NodeJS.ErrnoException;
        if (err.code === 'EADDRINUSE') throw new CliError(`cannot listen: ${err.message}; choose another --port or --orders-port`);
        throw error;
      }
      process.stdout.write(banner(emulator, flags));
      await untilSignal();
      process.stdout.write('print-service emulator: stopping\n');
      await emulator.close();
      // Nothing should be left, but a stuck socket must not keep a stopped emulator alive.
      setTimeout(() => process.exit(0), 2000).unref();
    });
}

function parseFlags(raw: Record<string, unknown>): Flags {
  const parsed = flagsSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const key = String(issue.path[0]);
    const flag = `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    return `${flag}: ${issue.message} (got ${JSON.stringify(raw[key])})`;
  });
  throw new CliError(`emulator: ${problems.join('; ')}`);
}

function toOptions(flags: Flags): EmulatorOptions {
  let accounts: EmulatorAccount[];
  try {
    accounts = flags.accounts ? loadAccountsFile(flags.accounts) : parseAccounts(DEFAULT_ACCOUNTS);
    const triggers = flags.triggers ? loadTriggersFile(flags.triggers) : [];
    return {
      host: flags.host,
      port: flags.port,
      ordersPort: flags.ordersPort,
      accounts,
      triggers,
      profile: flags.profile,
      fetch: flags.fetch,
      fetchTimeoutMs: flags.fetchTimeout,
      speed: flags.speed,
      manual: flags.manual,
      delays: {
        ...(flags.receivedDelay !== undefined ? { receivedMs: flags.receivedDelay } : {}),
        ...(flags.printReadyDelay !== undefined ? { printReadyMs: flags.printReadyDelay } : {}),
        ...(flags.shipDelay !== undefined ? { shipMs: flags.shipDelay } : {}),
      },
      failRate: flags.failRate,
      dropRate: flags.dropRate,
      seed: flags.seed,
      delivery: { maxAttempts: flags.deliveryAttempts, baseDelayMs: flags.deliveryBackoff, timeoutMs: flags.deliveryTimeout },
      logger: createLogger({ name: 'emulator', level: flags.quiet ? 'warn' : 'info' }),
    };
  } catch (error) {
    if (error instanceof EmulatorSetupError) throw new CliError(`emulator cannot start:\n${error.message}`);
    throw error;
  }
}

export function banner(emulator: RunningEmulator, flags: Pick<Flags, 'profile' | 'fetch' | 'triggers' | 'failRate' | 'dropRate'>): string {
  const first = emulator.accounts[0] as EmulatorAccount;
  const destinations = (a: EmulatorAccount) =>
    a.destinations
      ? [...a.destinations.values()].map((d) => `${d.name} (${d.skus ? `SKUs: ${[...d.skus].join(', ')}` : 'any SKU'})`).join(', ')
      : 'any destination';
  const { delays } = emulator;
  const lines = [
    'print-service emulator is running',
    `  {base_url}    ${emulator.baseUrl}`,
    `  {orders_url}  ${emulator.ordersUrl}`,
    `  test hooks    ${emulator.hooksUrl}  (unsigned; GET it for the list)`,
    '',
    ...emulator.accounts.map(
      (a, i) =>
        `${i === 0 ? 'Account' : 'Also   '} ${a.name}: token ${a.token}, secret ${a.secret}, accountId ${a.accountId}; destinations: ${destinations(a)}`,
    ),
    '',
    `Point print-bridge at it (environment or .env), as account ${first.name}:`,
    `  PRINT_API_BASE_URL=${emulator.baseUrl}`,
    `  PRINT_API_ORDERS_URL=${emulator.ordersUrl}`,
    `  PRINT_API_TOKEN=${first.token}`,
    `  PRINT_API_SECRET=${first.secret}`,
    `  PRINT_SOURCE_ACCOUNT=${first.name}`,
    '',
    `Orders: schema ${flags.profile}, files ${flags.fetch}, ` +
      (emulator.manual
        ? 'manual processing (POST /_emulator/orders/:id/advance)'
        : `received after ${delays.receivedMs} ms, print ready after ${delays.printReadyMs} ms more, each shipment after ${delays.shipMs} ms more`),
    `Triggers: ${emulator.deliveries.triggerCount > 0 ? `${emulator.deliveries.triggerCount} from ${flags.triggers}` : 'none (--triggers FILE)'}` +
      (flags.failRate > 0 || flags.dropRate > 0 ? `; faults: fail-rate ${flags.failRate}, drop-rate ${flags.dropRate}` : ''),
    'Ctrl-C stops it.',
    '',
  ];
  return lines.join('\n');
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
