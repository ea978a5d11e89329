import { z } from 'zod';
import { describeIssue } from '../../print-service/schema.js';
import { EmulatorSetupError, describeIssues, readJsonFile } from './config-files.js';

/**
 * Requester accounts of the emulator (DESIGN section 6): who may call it, with which credentials, and which
 * destination accounts (and SKUs) each may send to. `carriers` is the emulator's extension: the carrier aliases the
 * account has set up, each mapped to the carrier code and service reported at dispatch.
 */

const carrierServiceSchema = z.object({
  code: z.string().min(1, 'must not be empty'),
  service: z.string().min(1, 'must not be empty'),
});

export const accountSchema = z.object({
  name: z.string().min(1, 'must not be empty'),
  token: z
    .string()
    .min(1, 'must not be empty')
    .refine((v) => !v.includes(':'), 'must not contain ":" (the authorization header is TOKEN:SIGNATURE)'),
  secret: z.string().min(1, 'must not be empty'),
  accountId: z.string().regex(/^[0-9a-f]{24}$/, 'must be 24 lower-case hexadecimal characters'),
  destinations: z
    .array(
      z.object({
        name: z.string().min(1, 'must not be empty'),
        skus: z.array(z.string().min(1, 'must not be empty')).optional(),
      }),
    )
    .optional(),
  carriers: z.record(z.string().min(1), carrierServiceSchema).optional(),
});
export type AccountInput = z.input<typeof accountSchema>;

export const accountsFileSchema = z
  .array(accountSchema)
  .min(1, 'must list at least one account')
  .superRefine((accounts, ctx) => {
    for (const key of ['name', 'token', 'accountId'] as const) {
      const seen = new Map<string, number>();
      accounts.forEach((account, i) => {
        const first = seen.get(account[key]);
        if (first !== undefined) {
          ctx.addIssue({ code: 'custom', path: [i, key], message: `must be unique; [${first}] has the same ${key}` });
        } else {
          seen.set(account[key], i);
        }
      });
    }
  });

export interface CarrierService {
  code: string;
  service: string;
}

export interface EmulatorAccount {
  name: string;
  token: string;
  secret: string;
  accountId: string;
  /** Undefined: any destination name is accepted. */
  destinations?: Map<string, { name: string; skus?: ReadonlySet<string> }>;
  /** Undefined: any carrier alias is accepted. */
  carriers?: ReadonlyMap<string, CarrierService>;
}

/** "demo-brand-1" in hex: fixed so that demos, docs and tests can name it. */
export const DEMO_ACCOUNT_ID = '64656d6f2d6272616e642d31';

export const DEFAULT_ACCOUNTS: AccountInput[] = [
  {
    name: 'demo-brand',
    token: 'demo-token',
    secret: 'demo-secret',
    accountId: DEMO_ACCOUNT_ID,
    destinations: [{ name: 'demo-printer' }],
  },
];

/** Validates account definitions (from a file or from code); `source` names them in error messages. */
export function parseAccounts(input: unknown, source = 'accounts'): EmulatorAccount[] {
  const result = accountsFileSchema.safeParse(input, { error: describeIssue });
  if (!result.success) throw new EmulatorSetupError(describeIssues(source, result.error));
  return result.data.map((a) => ({
    name: a.name,
    token: a.token,
    secret: a.secret,
    accountId: a.accountId,
    destinations: a.destinations
      ? new Map(a.destinations.map((d) => [d.name, { name: d.name, skus: d.skus ? new Set(d.skus) : undefined }]))
      : undefined,
    carriers: a.carriers ? new Map(Object.entries(a.carriers)) : undefined,
  }));
}

export function loadAccountsFile(path: string): EmulatorAccount[] {
  return parseAccounts(readJsonFile(path), path);
}

/** What the emulator may show about an account (never the secret). */
export function describeAccount(account: EmulatorAccount) {
  return {
    name: account.name,
    token: account.token,
    accountId: account.accountId,
    destinations: account.destinations
      ? [...account.destinations.values()].map((d) => ({ name: d.name, skus: d.skus ? [...d.skus] : 'any' }))
      : 'any',
    carriers: account.carriers ? Object.fromEntries(account.carriers) : 'any alias',
  };
}
