import { execFile } from 'node:child_process';
import fs, { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { format, inspect } from 'node:util';

export const BIN = resolve(import.meta.dirname, '../../bin/print-bridge.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `print-bridge` as a user would, in a fresh working directory (so no developer's .env leaks in), with exactly
 * the given environment on top of PATH. For what only the real process shows: process.exit, signals, the servers of
 * `start` and `emulator`, bin/print-bridge.js itself. About a second or two per call (tsx compiles the sources);
 * everything else uses {@link runCliInProcess}.
 */
export function runBin(args: string[], env: Record<string, string> = {}, options: { cwd?: string; timeoutMs?: number } = {}): Promise<CliResult> {
  const cwd = options.cwd ?? mkdtempSync(join(tmpdir(), 'print-bridge-cli-'));
  return new Promise((resolvePromise) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd, env: { PATH: process.env.PATH ?? '', ...env }, timeout: options.timeoutMs ?? 30_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolvePromise({ code, stdout, stderr });
      },
    );
  });
}

let queue: Promise<unknown> = Promise.resolve();

/**
 * The same command as {@link runBin}, with the same result, called in this process through `runCli` (src/cli.ts):
 * milliseconds instead of seconds. For the duration of the call, and one call at a time:
 * - process.env is exactly `env` on top of PATH (the configuration is read from process.env, src/config.ts);
 * - the working directory is `cwd`, by default a fresh one, so no .env of the repository is read (the test pool is
 *   `forks`, where process.chdir is allowed);
 * - stdout and stderr are captured: process.stdout/stderr.write (the commands, commander's help and errors), console
 *   (vitest's own console would otherwise take it), and writes to file descriptors 1 and 2 through fs (pino's default
 *   destination);
 * - process.exitCode starts unset and is put back afterwards.
 * An error runCli does not handle ends a real process with its stack on stderr and exit code 1; so here.
 * Not emulated, so these stay with runBin: process.exit (vitest makes it throw), signals, a command that must end the
 * process (here nothing notices a connection left open), bin/print-bridge.js and dist/. What a command sets up
 * process-wide stays set in the test file's process afterwards (the Admin API routing of SHOPIFY_ADMIN_API_ORIGIN).
 */
export function runCliInProcess(args: string[], env: Record<string, string> = {}, options: { cwd?: string } = {}): Promise<CliResult> {
  const run = queue.then(() => callInProcess(args, env, options.cwd ?? mkdtempSync(join(tmpdir(), 'print-bridge-cli-'))));
  queue = run.catch(() => undefined);
  return run;
}

async function callInProcess(args: string[], env: Record<string, string>, cwd: string): Promise<CliResult> {
  // Imported before anything is changed: loading the commands must not see the command's environment or directory.
  const { runCli } = await import('../../src/cli.js');
  const out: string[] = [];
  const err: string[] = [];
  const sink = (fd: unknown): string[] | undefined => (fd === 1 ? out : fd === 2 ? err : undefined);
  const text = (chunk: unknown, encoding?: unknown): string =>
    typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString(typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');

  const saved = {
    env: { ...process.env },
    cwd: process.cwd(),
    exitCode: process.exitCode,
    stdoutWrite: process.stdout.write,
    stderrWrite: process.stderr.write,
    console: { log: console.log, info: console.info, debug: console.debug, warn: console.warn, error: console.error },
    writeSync: fs.writeSync,
    write: fs.write,
    signals: { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') },
  };

  const streamWrite = (into: string[]) =>
    function write(chunk: unknown, encoding?: unknown, callback?: unknown): boolean {
      into.push(text(chunk, encoding));
      const done = typeof encoding === 'function' ? encoding : callback;
      if (typeof done === 'function') process.nextTick(done as () => void);
      return true;
    } as typeof process.stdout.write;

  try {
    for (const key of Object.keys(process.env)) delete process.env[key];
    Object.assign(process.env, { PATH: saved.env.PATH ?? '', ...env });
    process.chdir(cwd);
    process.exitCode = undefined;
    process.stdout.write = streamWrite(out);
    process.stderr.write = streamWrite(err);
    console.log = console.info = console.debug = (...items: unknown[]) => void out.push(`${format(...items)}\n`);
    console.warn = console.error = (...items: unknown[]) => void err.push(`${format(...items)}\n`);
    fs.writeSync = ((fd: number, data: unknown, ...rest: unknown[]) => {
      const into = sink(fd);
      if (!into) return (saved.writeSync as (...a: unknown[]) => number)(fd, data, ...rest);
      const written = text(data, typeof rest[0] === 'string' ? rest[0] : undefined);
      into.push(written);
      return Buffer.byteLength(written);
    }) as typeof fs.writeSync;
    fs.write = ((fd: number, data: unknown, ...rest: unknown[]) => {
      const into = sink(fd);
      if (!into) return (saved.write as (...a: unknown[]) => void)(fd, data, ...rest);
      const written = text(data, typeof rest[0] === 'string' ? rest[0] : undefined);
      into.push(written);
      const callback = rest.at(-1);
      if (typeof callback === 'function') process.nextTick(callback as (e: null, n: number) => void, null, Buffer.byteLength(written));
    }) as typeof fs.write;

    let code: number;
    try {
      code = await runCli(args);
    } catch (error) {
      err.push(`${inspect(error)}\n`);
      code = 1;
    }
    // A logger's last lines are written on the next turns of the event loop.
    await new Promise((resolveTurn) => setImmediate(resolveTurn));
    return { code, stdout: out.join(''), stderr: err.join('') };
  } finally {
    fs.write = saved.write;
    fs.writeSync = saved.writeSync;
    Object.assign(console, saved.console);
    process.stdout.write = saved.stdoutWrite;
    process.stderr.write = saved.stderrWrite;
    process.exitCode = saved.exitCode;
    process.chdir(saved.cwd);
    for (const key of Object.keys(process.env)) delete process.env[key];
    Object.assign(process.env, saved.env);
    // A command's own signal handlers (the long-running ones add them) end with the command.
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      for (const listener of process.listeners(signal)) if (!saved.signals[signal].includes(listener)) process.off(signal, listener);
    }
  }
}
