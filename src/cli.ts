import { Command, CommanderError } from 'commander';
import { ConfigError } from './config.js';
import { CliError } from './cli/errors.js';
import { registerPrintApiCommands } from './print-service/cli.js';
import { PrintServiceError } from './print-service/errors.js';
import { registerEmulatorCommand } from './dev/emulator/cli.js';
import { prepareDevelopment } from './dev/start-dev.js';
import { registerMappingCommands } from './mapping/cli.js';
import { registerAppCommands } from './app/cli.js';
import { registerDemoCommand } from './dev/demo/cli.js';
import { registerDbCommands } from './db/cli.js';
import { registerDataRequestCommands } from './app/privacy-cli.js';

/**
 * `print-bridge`: one binary for every role (DESIGN section 3). Each domain registers its own commands so that this
 * file stays a table of contents. It is the one production file that imports from src/dev/ (the emulator, the demo and
 * `start --dev` are commands of the same binary); a lint rule keeps every other one apart from it.
 */
export function buildProgram(): Command {
  const program = new Command('print-bridge')
    .description('Sends Shopify orders to a print-production order service and brings status and tracking back.')
    .version('0.1.0')
    .showHelpAfterError('(run with --help for usage)')
    // Set before any command is added: subcommands copy it, so no parse error calls process.exit behind our back.
    .exitOverride();
  registerPrintApiCommands(program);
  registerEmulatorCommand(program);
  registerMappingCommands(program);
  registerAppCommands(program, { prepareDevelopment });
  registerDemoCommand(program);
  registerDbCommands(program);
  registerDataRequestCommands(program);
  return program;
}

/** Runs the command line; returns the exit code instead of exiting so tests can call it. */
export async function runCli(argv: readonly string[], io: { stderr: (s: string) => void } = { stderr: (s) => process.stderr.write(s) }): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv as string[], { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof ConfigError || error instanceof CliError || error instanceof PrintServiceError) {
      io.stderr(`print-bridge: ${error.message}\n`);
      return error instanceof CliError ? error.exitCode : 1;
    }
    throw error;
  }
}

/** Entry point of bin/print-bridge.js. */
export async function main(): Promise<void> {
  const code = await runCli(process.argv.slice(2));
  // Long-running commands (start, emulator) keep the process alive through their servers; short ones end here.
  process.exitCode = code;
}
