import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { formatPath } from '../../print-service/schema.js';

/** A problem with the emulator's own set-up (an accounts or triggers file, a flag); the message names the source. */
export class EmulatorSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmulatorSetupError';
  }
}

/** Reads and parses a JSON file; every failure names the file and says what is wrong with it. */
export function readJsonFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (error as Error).message;
    throw new EmulatorSetupError(`${path}: cannot read the file: ${why}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new EmulatorSetupError(`${path}: not valid JSON: ${describeJsonError(text, error)}`);
  }
}

function describeJsonError(text: string, error: unknown): string {
  // V8 echoes the whole text back ('Unexpected token ..., "<text>" is not valid JSON'): keep only the reason.
  const message = (error instanceof Error ? error.message : String(error)).replace(/, ".*" is not valid JSON$/s, '');
  const at = /position (\d+)/.exec(message);
  if (!at) return message;
  const position = Number(at[1]);
  const before = text.slice(0, position).split('\n');
  const line = before.length;
  const column = (before[before.length - 1]?.length ?? 0) + 1;
  return `${message} (line ${line}, column ${column})`;
}

/** `accounts.json: [1].token: must not contain ":"`, one line per problem. */
export function describeIssues(source: string, error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = formatPath(issue.path);
      return `${source}: ${path ? `${path}: ` : ''}${issue.message}`;
    })
    .join('\n');
}
