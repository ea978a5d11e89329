import type { Command } from 'commander';
import { z } from 'zod';
import { CliError } from '../../cli/errors.js';
import { demoEnvironment } from '../../config.js';
import { DEMO_DEFAULTS, runDemo } from './run-demo.js';

const flagsSchema = z.object({
  speed: z.coerce.number({ error: 'must be a number' }).positive('must be above 0').max(1000, 'must be at most 1000'),
  holdSeconds: z.coerce.number({ error: 'must be a number of seconds' }).min(0.5, 'must be at least 0.5 (the cancellation inside the window needs time)').max(600, 'must be at most 600'),
  timeout: z.coerce.number({ error: 'must be a number of seconds' }).positive('must be above 0'),
  port: z.coerce.number({ error: 'must be a port number' }).int('must be a whole number').min(0).max(65535, 'must be from 0 to 65535').optional(),
  keepRunning: z.boolean().default(false),
  color: z.boolean().default(true),
  json: z.boolean().default(false),
});

/** `print-bridge demo` (DESIGN section 3; docs/demo.md). */
export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description(
      'The whole loop on this machine, no accounts needed: starts the print-service emulator, a Shopify Admin ' +
        'stand-in and the app, sends sample orders as signed webhooks, shows their progress and checks where each ' +
        'one ends (docs/demo.md). Uses REDIS_URL when Redis answers there, else starts a private redis-server. ' +
        'Exit 0 when every order reached its expected end state, 1 otherwise, 130 on Ctrl-C.',
    )
    .option('--speed <factor>', 'emulator speed: divides its stage delays (500 / 2000 / 3000 ms)', String(DEMO_DEFAULTS.speed))
    .option('--hold-seconds <s>', 'hold window before an order is sent to the printer', String(DEMO_DEFAULTS.holdSeconds))
    .option('--timeout <seconds>', 'give up on orders that have not settled after this long', String(DEMO_DEFAULTS.timeoutSeconds))
    .option('--port <n>', "the app's web port (default: any free port)")
    .option('--keep-running', 'leave everything running after the summary (with the admin pages’ address) until Ctrl-C')
    .option('--no-color', 'no colours (also when NO_COLOR is set)')
    .option('--json', 'print the result as JSON instead of the live table and summary')
    .action(async (raw: Record<string, unknown>) => {
      const parsed = flagsSchema.safeParse(raw);
      if (!parsed.success) {
        const problems = parsed.error.issues.map((issue) => {
          const key = String(issue.path[0]);
          return `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}: ${issue.message} (got ${JSON.stringify(raw[key])})`;
        });
        throw new CliError(`demo: ${problems.join('; ')}`);
      }
      const flags = parsed.data;
      const env = demoEnvironment();

      const interrupt = new AbortController();
      const onSignal = () => {
        // A second Ctrl-C means now.
        process.once('SIGINT', () => process.exit(130));
        interrupt.abort();
      };
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);

      const result = await runDemo({
        out: process.stdout,
        redisUrl: env.redisUrl,
        adminToken: env.adminToken,
        speed: flags.speed,
        holdSeconds: flags.holdSeconds,
        timeoutSeconds: flags.timeout,
        port: flags.port,
        keepRunning: flags.keepRunning,
        color: flags.color && !env.noColor && !flags.json && process.stdout.isTTY === true,
        json: flags.json,
        signal: interrupt.signal,
      }).catch((error: unknown) => {
        // Whatever failed may have left a connection open; the error is reported and the process must still end.
        setTimeout(() => process.exit(1), 2_000).unref();
        throw error;
      });

      if (result.stack) {
        if (!interrupt.signal.aborted) await new Promise((resolve) => interrupt.signal.addEventListener('abort', resolve, { once: true }));
        process.stdout.write('Stopping: the app, the emulator, the stand-in; deleting the demo’s keys.\n');
        await result.stack.close();
      }
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      process.exitCode = result.exitCode;
      // Everything is closed; a connection pool that lingers must not keep a finished demo alive.
      setTimeout(() => process.exit(result.exitCode), 2_000).unref();
    });
}
