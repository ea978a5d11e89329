import { Liquid, type Template } from 'liquidjs';
import { z } from 'zod';
import { describeIssue } from '../../print-service/schema.js';
import { EmulatorSetupError, describeIssues, readJsonFile } from './config-files.js';
import { EVENT_NAMES, type EventName } from '../../print-service/postback-triggers.js';

export { EVENT_NAMES, type EventName };

const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export const triggerSchema = z.object({
  event: z.enum(EVENT_NAMES, { error: `must be one of ${EVENT_NAMES.map((e) => JSON.stringify(e)).join(', ')}` }),
  url: z
    .string()
    .refine((v) => /^https?:\/\//i.test(v) && URL.canParse(v), 'must be an http(s) URL'),
  template: z.string(),
  /** Fire for this requester account's orders only (its `name`); without it, for every account's. */
  account: z.string().min(1).optional(),
  headers: z
    .record(z.string(), z.string())
    .superRefine((headers, ctx) => {
      for (const name of Object.keys(headers)) {
        if (!headerName.test(name)) ctx.addIssue({ code: 'custom', path: [name], message: 'must be a valid HTTP header name' });
      }
    })
    .optional(),
});
export type TriggerInput = z.input<typeof triggerSchema>;

export interface Trigger {
  /** Position in the file, shown in the delivery log. */
  index: number;
  event: EventName;
  url: string;
  /** The requester account whose orders fire it; undefined: every account's. */
  account?: string;
  headers: Record<string, string>;
  template: Template[];
}

/**
 * Liquid as Shopify merchants know it. Filters must exist (a typo is an error at load, not an empty body at 3 am);
 * unknown variables render empty, as in the real trigger system, because a template is shared by orders that differ.
 */
export const triggerLiquid = new Liquid({ strictFilters: true, strictVariables: false });

/** Validates trigger definitions and parses every template once; `source` names them in error messages. */
export function parseTriggers(input: unknown, source = 'triggers'): Trigger[] {
  const result = z.array(triggerSchema).safeParse(input, { error: describeIssue });
  if (!result.success) throw new EmulatorSetupError(describeIssues(source, result.error));
  const problems: string[] = [];
  const triggers: Trigger[] = [];
  result.data.forEach((t, index) => {
    try {
      triggers.push({
        index,
        event: t.event,
        url: t.url,
        ...(t.account ? { account: t.account } : {}),
        headers: t.headers ?? {},
        template: triggerLiquid.parse(t.template),
      });
    } catch (error) {
      problems.push(`${source}: [${index}].template: ${(error as Error).message.split('\n')[0]}`);
    }
  });
  if (problems.length > 0) throw new EmulatorSetupError(problems.join('\n'));
  return triggers;
}

export function loadTriggersFile(path: string): Trigger[] {
  return parseTriggers(readJsonFile(path), path);
}

/** Renders synchronously, at the moment of the event, so the body shows the order as it was then. */
export function renderTrigger(trigger: Trigger, context: object): string {
  return String(triggerLiquid.renderSync(trigger.template, context));
}
