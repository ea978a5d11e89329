import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import dockerignore from '@balena/dockerignore';

/**
 * Builds an image's file tree without Docker: the few Dockerfile instructions print-bridge's Dockerfile uses, parsed
 * and carried out in folders (one per stage), the build context read with Docker's own .dockerignore rules. What this
 * does not know (another instruction, a RUN step it has no meaning for, a wildcard COPY) is an error, never skipped:
 * the test then needs teaching, rather than passing on something it did not build.
 */

export interface Instruction {
  line: number;
  keyword: string;
  args: string;
}

export interface Copy {
  from?: string;
  sources: string[];
  dest: string;
}

export interface Stage {
  name?: string;
  base: string;
  instructions: Instruction[];
}

/** The Dockerfile's instructions by stage: continuation lines joined, comments and blank lines dropped. */
export function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const first = i + 1;
    let logical = lines[i]!.trim();
    if (logical === '' || logical.startsWith('#')) continue;
    while (logical.endsWith('\\')) {
      logical = logical.slice(0, -1);
      i++;
      if (i >= lines.length) break;
      const next = lines[i]!.trim();
      // Docker drops comment lines inside a continued instruction.
      if (!next.startsWith('#')) logical += ` ${next}`;
    }
    const match = /^(\S+)\s*(.*)$/s.exec(logical)!;
    const instruction = { line: first, keyword: match[1]!.toUpperCase(), args: match[2]!.trim() };
    if (instruction.keyword === 'FROM') {
      const from = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(instruction.args);
      if (!from) throw new Error(`Dockerfile line ${first}: FROM ${instruction.args} is not understood`);
      stages.push({ base: from[1]!, ...(from[2] ? { name: from[2] } : {}), instructions: [] });
    } else {
      if (stages.length === 0) throw new Error(`Dockerfile line ${first}: ${instruction.keyword} before FROM`);
      stages.at(-1)!.instructions.push(instruction);
    }
  }
  return stages;
}

/** COPY's flags, sources and destination (shell or JSON form). */
export function parseCopy(instruction: Instruction): Copy {
  let words: string[];
  const rest = instruction.args;
  const flags: string[] = [];
  let body = rest;
  while (body.startsWith('--')) {
    const [flag, ...others] = body.split(/\s+/);
    flags.push(flag!);
    body = others.join(' ');
  }
  if (body.startsWith('[')) words = JSON.parse(body) as string[];
  else words = body.split(/\s+/).filter(Boolean);
  if (words.length < 2) throw new Error(`Dockerfile line ${instruction.line}: COPY needs a source and a destination`);
  let from: string | undefined;
  for (const flag of flags) {
    if (flag.startsWith('--from=')) from = flag.slice('--from='.length);
    else if (!flag.startsWith('--chown=') && !flag.startsWith('--chmod=') && flag !== '--link') {
      throw new Error(`Dockerfile line ${instruction.line}: COPY ${flag} is not known to this test`);
    }
  }
  const sources = words.slice(0, -1);
  for (const source of sources) {
    if (/[*?[]/.test(source)) throw new Error(`Dockerfile line ${instruction.line}: COPY ${source}: wildcards are not known to this test`);
  }
  return { ...(from ? { from } : {}), sources, dest: words.at(-1)! };
}

/** ENTRYPOINT and CMD must be in exec form: a shell-form ENTRYPOINT would ignore `docker run IMAGE web`'s arguments. */
export function parseExecForm(instruction: Instruction): string[] {
  if (!instruction.args.startsWith('[')) {
    throw new Error(`Dockerfile line ${instruction.line}: ${instruction.keyword} must be in exec form (["node", ...]) so that docker run's arguments reach the program`);
  }
  return JSON.parse(instruction.args) as string[];
}

/**
 * The build context as `docker build .` sends it from a clean clone: the repository's files (`git ls-files`, as they
 * are in the work tree) less what .dockerignore excludes, matched by @balena/dockerignore, a port of Docker's rules.
 */
export async function materializeContext(repo: string, into: string): Promise<string[]> {
  const listed = (await run('git', ['ls-files', '-z'], { cwd: repo })).split('\0').filter(Boolean);
  const rules = existsSync(join(repo, '.dockerignore')) ? readFileSync(join(repo, '.dockerignore'), 'utf8') : '';
  // A CommonJS package whose types declare an ES default export: `.default` is the factory for both.
  const kept = dockerignore.default().add(rules.split('\n')).createFilter();
  const files = listed.filter((file) => kept(file) && existsSync(join(repo, file)));
  for (const file of files) {
    mkdirSync(dirname(join(into, file)), { recursive: true });
    cpSync(join(repo, file), join(into, file));
  }
  return files;
}

/** A RUN step (one side of `&&`) carried out in a stage's folder. */
export type RunStep = (step: string, stage: StageTree) => Promise<void> | void;

export interface StageTree {
  /** The folder standing for the stage's `/`. */
  root: string;
  workdir: string;
  env: Record<string, string>;
  user?: string;
  entrypoint?: string[];
  cmd?: string[];
  /** Each RUN step as it was carried out, or why it was not. */
  log: string[];
}

/** A path inside a stage, absolute or relative to its WORKDIR, as a path on this machine. */
export function hostPath(stage: StageTree, path: string): string {
  return join(stage.root, posix.resolve(stage.workdir, path));
}

/**
 * Runs the stages, each in its own folder under `dir`; returns every stage's tree (the last is the image). As BuildKit
 * does, a stage runs alongside the others and waits only where it takes files from an earlier one (`COPY --from`):
 * the image's own `npm ci --omit=dev` need not wait for the build stage's compile.
 */
export async function buildStages(stages: Stage[], context: string, dir: string, runStep: RunStep): Promise<StageTree[]> {
  const trees: StageTree[] = stages.map((_, index) => ({ root: join(dir, `stage-${index}`), workdir: '/', env: {}, log: [] }));
  // Each stage's run, by index and by name; a stage may only take from one defined before it, as in Docker.
  const built: Promise<StageTree>[] = [];
  const byName = new Map<string, Promise<StageTree>>();
  // A failed stage fails the build at once, not only when a later stage waits on it.
  const failed = new AbortController();
  for (const [index, stage] of stages.entries()) {
    const earlier = { byName: new Map(byName), byIndex: built.slice() };
    const running = buildStage(stage, trees[index]!, context, earlier, runStep, failed.signal);
    running.catch((error: unknown) => failed.abort(error));
    built.push(running);
    if (stage.name) byName.set(stage.name, running);
  }
  return Promise.all(built);
}

async function buildStage(
  stage: Stage,
  tree: StageTree,
  context: string,
  earlier: { byName: Map<string, Promise<StageTree>>; byIndex: Promise<StageTree>[] },
  runStep: RunStep,
  failed: AbortSignal,
): Promise<StageTree> {
  mkdirSync(tree.root, { recursive: true });
  for (const instruction of stage.instructions) {
    failed.throwIfAborted();
    switch (instruction.keyword) {
      case 'WORKDIR':
        tree.workdir = posix.resolve(tree.workdir, instruction.args);
        mkdirSync(hostPath(tree, '.'), { recursive: true });
        break;
      case 'ENV':
        for (const [key, value] of parseEnv(instruction)) tree.env[key] = value;
        break;
      case 'COPY': {
        const copy = parseCopy(instruction);
        const sourceStage = copy.from ? earlier.byName.get(copy.from) ?? earlier.byIndex[Number(copy.from)] : undefined;
        if (copy.from && !sourceStage) throw new Error(`Dockerfile line ${instruction.line}: COPY --from=${copy.from}: no such stage`);
        // The stage it takes from, once that stage is built.
        const source = sourceStage ? await sourceStage : undefined;
        const toDir = copy.dest.endsWith('/') || copy.sources.length > 1;
        for (const src of copy.sources) {
          const from = source ? join(source.root, posix.resolve('/', src)) : join(context, posix.normalize(src));
          if (!source && posix.normalize(src).startsWith('..')) throw new Error(`Dockerfile line ${instruction.line}: COPY ${src} is outside the build context`);
          if (!existsSync(from)) {
            throw new Error(
              `Dockerfile line ${instruction.line}: COPY ${src}: not found ${source ? `in stage ${copy.from}` : 'in the build context (not in git, or excluded by .dockerignore)'}`,
            );
          }
          const dest = hostPath(tree, copy.dest);
          // Docker copies a directory's contents, never the directory itself; a file into a destination ending in
          // `/` (or with several sources) keeps its name.
          if (statSync(from).isDirectory()) cpSync(from, dest, { recursive: true });
          else {
            const target = toDir ? join(dest, posix.basename(src)) : dest;
            mkdirSync(dirname(target), { recursive: true });
            cpSync(from, target);
          }
        }
        break;
      }
      case 'RUN':
        if (instruction.args.startsWith('[')) throw new Error(`Dockerfile line ${instruction.line}: RUN in exec form is not known to this test`);
        for (const step of instruction.args.split(/\s*&&\s*/)) await runStep(step.trim(), tree);
        break;
      case 'USER':
        tree.user = instruction.args;
        break;
      case 'ENTRYPOINT':
        tree.entrypoint = parseExecForm(instruction);
        // Docker resets an inherited CMD when ENTRYPOINT is set.
        delete tree.cmd;
        break;
      case 'CMD':
        tree.cmd = parseExecForm(instruction);
        break;
      // Metadata for the container's run time: nothing to build.
      case 'EXPOSE':
      case 'HEALTHCHECK':
      case 'STOPSIGNAL':
      case 'LABEL':
        break;
      default:
        throw new Error(`Dockerfile line ${instruction.line}: ${instruction.keyword} is not known to this test (test/helpers/dockerfile.ts)`);
    }
  }
  return tree;
}

function parseEnv(instruction: Instruction): [string, string][] {
  const args = instruction.args;
  if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(args)) {
    const [key, ...value] = args.split(/\s+/);
    return [[key!, value.join(' ')]];
  }
  return [...args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|\S*)/g)].map((m) => [m[1]!, m[2]!.startsWith('"') ? (JSON.parse(m[2]!) as string) : m[2]!]);
}

/** Runs a program, resolving with its standard output; rejects with both outputs when it fails. */
export function run(file: string, args: string[], options: { cwd: string; env?: Record<string, string>; timeoutMs?: number }): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      { cwd: options.cwd, env: options.env ?? process.env, timeout: options.timeoutMs ?? 120_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${file} ${args.join(' ')} (in ${options.cwd}) failed: ${error.message}\n${stdout}\n${stderr}`));
        else resolve(stdout);
      },
    );
  });
}
