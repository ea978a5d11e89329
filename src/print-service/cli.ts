import { readFile } from 'node:fs/promises';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { type Config, loadConfig, printApiSettings, REQUIRED_FOR } from '../config.js';
import { CliError } from '../cli/errors.js';
import { PrintServiceClient } from './client.js';
import { PrintRequestInvalidError, PrintServiceError } from './errors.js';
import { formatProblems, parseOrder, type SchemaProfile } from './schema.js';
import { submitOrder } from './submit.js';

export interface PrintApiCliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Defaults to reading the environment through loadConfig. */
  loadConfig?: (require: readonly (keyof Config)[]) => Config;
}

const defaultIo: PrintApiCliIo = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
};

/** A command line waits seconds, not the minutes a job may; transient failures get a short, bounded retry. */
const CLI_RETRY = { maxAttempts: 3, baseDelayMs: 300, maxDelayMs: 2_000, maxTotalMs: 8_000 };

export function registerPrintApiCommands(program: Command, io: PrintApiCliIo = defaultIo): void {
  const api = program
    .command('print-api')
    .description(
      'Signed calls to the configured print service (PRINT_API_BASE_URL, PRINT_API_ORDERS_URL, PRINT_API_TOKEN, ' +
        'PRINT_API_SECRET, PRINT_SOURCE_ACCOUNT); prints the JSON answer, exits 1 on an error answer',
    );

  api
    .command('validate')
    .description('ask the service whether the order in FILE is suitable for submission')
    .argument('<file>', 'order JSON ({destination, orderData})')
    .action(async (file: string) => {
      const order = await readJsonFile(file);
      await run(io, REQUIRED_FOR.printApi, (client) => client.validate(order));
    });

  api
    .command('submit')
    .description('submit the order in FILE (to PRINT_API_ORDERS_URL); never sends a create twice for one sourceOrderId')
    .argument('<file>', 'order JSON ({destination, orderData})')
    .addOption(
      new Option('--profile <profile>', 'local schema check before sending').choices(['strict', 'lenient']).default('strict'),
    )
    .option('--no-check', 'skip the local schema check and send the document as it is')
    .action(async (file: string, opts: { profile: SchemaProfile; check: boolean }) => {
      const document = await readJsonFile(file);
      if (opts.check) {
        const parsed = parseOrder(document, opts.profile);
        if (!parsed.ok) {
          throw new CliError(
            `${file} is not a valid order (${opts.profile} profile); nothing was sent:\n${formatProblems(parsed.problems)}`,
          );
        }
      }
      // The file is sent as it is, as validate sends it: the check only says whether it may go. The schema's parsed
      // copy drops the fields it does not know (a production order's pspBranding, componentId, printType, …) and
      // rewrites others (extraData: [] becomes {}), so what was validated would not be what was submitted.
      const order = document as Parameters<typeof submitOrder>[1];
      await run(io, REQUIRED_FOR.printApi, async (client) => {
        const outcome = await submitOrder(client, order, {
          onAttemptFailed: ({ attempt, error, delayMs, willReconcile }) =>
            io.stderr(
              `attempt ${attempt} failed: ${error.message} Trying again in ${delayMs} ms` +
                `${willReconcile ? ' after checking whether the service stored it' : ''}.\n`,
            ),
        });
        if (outcome.kind === 'already-submitted') {
          io.stderr(
            `The service already has sourceOrderId "${order.orderData.sourceOrderId}" (_id ${outcome.order._id}); nothing new was created.\n`,
          );
          return outcome.order;
        }
        return outcome.acknowledgement;
      });
    });

  api
    .command('list')
    .description("list the account's orders, newest first")
    .option('--page <n>', 'page number (service default 1)', positiveInteger)
    .option('--pagesize <n>', 'orders per page (service default 10)', positiveInteger)
    .action(async (opts: { page?: number; pagesize?: number }) => {
      await run(io, REQUIRED_FOR.printApi, (client) => client.list({ page: opts.page, pagesize: opts.pagesize }));
    });

  api
    .command('get')
    .description("one order by the service's 24-hex id")
    .argument('<id>', 'order id (24 hexadecimal characters)')
    .action(async (id: string) => {
      await run(io, REQUIRED_FOR.printApi, (client) => client.get(id));
    });

  api
    .command('by-source')
    .description('one order by its source order id')
    .argument('<sourceOrderId>')
    .action(async (sourceOrderId: string) => {
      await run(io, REQUIRED_FOR.printApi, (client) => client.getBySourceId(sourceOrderId));
    });

  api
    .command('cancel')
    .description('cancel an order of PRINT_SOURCE_ACCOUNT by its source order id')
    .argument('<sourceOrderId>')
    .action(async (sourceOrderId: string) => {
      await run(io, REQUIRED_FOR.printApiCancel, (client) => client.cancel(sourceOrderId));
    });

  api
    .command('update-shipping')
    .description("amend a shipment's address, carrier or tracking number with the body in FILE")
    .argument('<sourceOrderId>')
    .argument('<index>', 'shipment index (0 for the first shipment)', nonNegativeInteger)
    .argument('<file>', 'JSON body: {shipTo?, carrier?: {code, service}, trackingNumber?}')
    .action(async (sourceOrderId: string, index: number, file: string) => {
      const body = await readJsonFile(file);
      await run(io, REQUIRED_FOR.printApi, (client) => client.updateShipping(sourceOrderId, index, body));
    });
}

async function run(
  io: PrintApiCliIo,
  required: readonly (keyof Config)[],
  call: (client: PrintServiceClient) => Promise<unknown>,
): Promise<void> {
  const config = (io.loadConfig ?? ((r) => loadConfig({ require: r })))(required);
  const settings = printApiSettings(config);
  const client = new PrintServiceClient({ ...settings, retry: CLI_RETRY });
  try {
    const answer = await call(client);
    io.stdout(`${JSON.stringify(answer, null, 2)}\n`);
  } catch (error) {
    if (error instanceof PrintServiceError && 'serviceError' in error && error.serviceError && !(error instanceof PrintRequestInvalidError)) {
      // The service's own error body is the answer: print it as JSON like any other answer, then fail.
      io.stdout(`${JSON.stringify({ success: false, error: error.serviceError }, null, 2)}\n`);
    }
    throw error;
  } finally {
    await client.close();
  }
}

async function readJsonFile(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(`Cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new CliError(`${file} is not JSON: ${(error as Error).message}`);
  }
}

function positiveInteger(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('must be a whole number of 1 or more');
  return Number(value);
}

function nonNegativeInteger(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a whole number of 0 or more');
  return Number(value);
}
