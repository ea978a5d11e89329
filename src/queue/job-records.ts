import type { JobType, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { JobMentions } from '../bridge/ports.js';
import { jobId } from './queues.js';

export type { JobMentions };

/**
 * What BullMQ keeps of jobs after they ran, and what redaction erases there. A finished job stays in Redis (a day when
 * completed, a month when failed) with its data, its result or error and stack trace; each queue's `events` stream
 * keeps its last 10,000 events, with job ids, results and failure reasons. Job data carries ids only, but ids name a
 * store and its orders, and results and errors quote what a problem said (an artwork URL a customer typed, with their
 * name in it).
 *
 * Only the redacted store's own records are ever looked at: a job whose data names the store, whose id has the store
 * as a part, or (a postback of the operator's print account, which names no store) whose event names one of the
 * store's print references exactly. Inside those, a customer's redaction looks for the order's ids and texts. Anything
 * else could be another store's: a sourceOrderId or a print `_id` is the merchant's or their print service's choice
 * (one called "submit" is a word of every store's job ids), and a problem's wording is the same for every store.
 */


export interface ErasedJobRecords {
  /** Job records removed. */
  jobs: number;
  /** Job records still to run whose error texts were blanked (a job waiting for its next attempt keeps the last one). */
  scrubbed: number;
  /** Records that mention it but could not be removed: running right now (a redaction job's own). */
  running: number;
  /** Event-stream entries deleted. */
  events: number;
}

/** Finished jobs: what a customer's redaction removes. */
const FINISHED_STATES: readonly JobType[] = ['completed', 'failed'];
/** Still to run: a customer's redaction keeps these (the order may still print) and blanks the errors they carry. */
const PENDING_STATES: readonly JobType[] = ['delayed', 'waiting', 'prioritized', 'waiting-children'];
/** Every job not running now: a store's redaction leaves none of its jobs to run later. */
export const EVERY_IDLE_STATE: readonly JobType[] = [...FINISHED_STATES, ...PENDING_STATES];

const PAGE = 500;
/** Word boundaries in job ids (`submit|shop|order|0`), JSON and messages; `:` and `/` belong to gids. */
const WORD_BREAK = /[\s"'\\|,;()[\]{}<>]+/;
/** What stands in a pending job's error fields once blanked. */
const BLANKED = '[removed: customer data redacted]';

export async function eraseJobRecords(redis: Redis, queues: readonly Queue[], mentions: JobMentions): Promise<ErasedJobRecords> {
  const owned = ownership(mentions);
  // A webhook job that failed names its order nowhere but by its delivery's id.
  const mentioned = mentions.everyRecord ? () => true : mentionMatcher({ ...mentions, ids: [...(mentions.ids ?? []), ...(mentions.webhookIds ?? [])] });
  const erased: ErasedJobRecords = { jobs: 0, scrubbed: 0, running: 0, events: 0 };
  if (!mentioned) return erased;
  for (const queue of queues) {
    // Every state either way: a customer's jobs still to run are looked at too, to blank their errors.
    const found = await storeJobs(queue, EVERY_IDLE_STATE, owned, mentioned, !mentions.everyRecord);
    for (const id of found.remove) {
      // 0: locked by a worker that runs it now; it finishes and is removed (or kept) by its own options.
      if ((await queue.remove(id)) === 1) erased.jobs += 1;
      else erased.running += 1;
    }
    for (const id of found.scrub) {
      await redis.hset(queue.toKey(id), 'failedReason', BLANKED, 'stacktrace', '[]');
      erased.scrubbed += 1;
    }
    // After the removals: each adds a `removed` event naming the job, deleted here with the rest.
    const stream = queue.keys.events;
    if (!stream) continue;
    erased.events += await deleteEvents(redis, stream, (entry) => {
      const id = entry.jobId ?? '';
      if (found.remove.has(id) || found.scrub.has(id)) return true;
      return (found.owned.has(id) || owned.byId(id)) && entry.values.some(mentioned);
    });
  }
  return erased;
}

/** Whether a job is the store's: its data, its id, or (a postback of the operator's account) its event's reference. */
function ownership(mentions: JobMentions): { byId(id: string): boolean; byJob(id: string, data: unknown): boolean } {
  const shopPart = jobId(mentions.shop);
  const printEventSuffix = `.${mentions.shop}`;
  const references = new Set(mentions.printReferences ?? []);
  const known = new Set((mentions.webhookIds ?? []).map((id) => jobId('wh', id)));
  const byId = (id: string) => known.has(id) || id.split('|').some((part) => part === shopPart || part.endsWith(printEventSuffix));
  return {
    byId,
    byJob(id, data) {
      if (byId(id)) return true;
      if (!data || typeof data !== 'object') return false;
      const d = data as { shop?: unknown; event?: { sourceOrderId?: unknown; printOrderId?: unknown } };
      if (d.shop !== undefined) return d.shop === mentions.shop;
      const event = d.event;
      return Boolean(event && ((typeof event.sourceOrderId === 'string' && references.has(event.sourceOrderId)) || (typeof event.printOrderId === 'string' && references.has(event.printOrderId))));
    },
  };
}

/** Collected first, acted on after: removing while paging would shift the pages. */
async function storeJobs(
  queue: Queue,
  states: readonly JobType[],
  owned: ReturnType<typeof ownership>,
  mentioned: (text: string) => boolean,
  keepPending: boolean,
): Promise<{ remove: Set<string>; scrub: Set<string>; owned: Set<string> }> {
  const found = { remove: new Set<string>(), scrub: new Set<string>(), owned: new Set<string>() };
  const pending = new Set<string>(PENDING_STATES);
  for (const state of states) {
    for (let start = 0; ; start += PAGE) {
      const jobs = await queue.getJobs([state], start, start + PAGE - 1, true);
      if (jobs.length === 0) break;
      for (const job of jobs) {
        if (!job?.id || !owned.byJob(job.id, job.data)) continue;
        found.owned.add(job.id);
        const record = JSON.stringify([job.id, job.name, job.data, job.returnvalue, job.failedReason, job.stacktrace, job.opts]);
        if (!mentioned(record)) continue;
        // A job still to run of a customer's order stays (it may still print the order); only its error texts go.
        if (keepPending && pending.has(state)) found.scrub.add(job.id);
        else found.remove.add(job.id);
      }
    }
  }
  return found;
}

async function deleteEvents(redis: Redis, stream: string, matches: (entry: { jobId?: string; values: string[] }) => boolean): Promise<number> {
  let deleted = 0;
  let from = '-';
  for (;;) {
    const entries = await redis.xrange(stream, from, '+', 'COUNT', PAGE);
    if (entries.length === 0) return deleted;
    const doomed: string[] = [];
    for (const [id, fields] of entries) {
      const values = fields.filter((_, i) => i % 2 === 1);
      const jobIdAt = fields.findIndex((f, i) => i % 2 === 0 && f === 'jobId');
      if (matches({ jobId: jobIdAt >= 0 ? fields[jobIdAt + 1] : undefined, values })) doomed.push(id);
    }
    if (doomed.length > 0) deleted += await redis.xdel(stream, ...doomed);
    from = `(${entries[entries.length - 1]![0]}`;
  }
}

/** Undefined when there is nothing to look for. Used only inside one store's records (ownership above). */
export function mentionMatcher(mentions: Pick<JobMentions, 'ids' | 'texts' | 'printReferences'>): ((text: string) => boolean) | undefined {
  const ids = new Set<string>();
  for (const id of [...(mentions.ids ?? []), ...(mentions.printReferences ?? [])]) {
    if (id.trim() === '') continue;
    // As given, and as it reads inside a job id (jobId() turns ':' into '_').
    ids.add(id);
    ids.add(jobId(id));
  }
  const texts = new Set<string>();
  for (const text of mentions.texts ?? []) {
    if (text.trim() === '') continue;
    // As given, and as it reads inside JSON (a quoted URL's quotes escaped).
    texts.add(text);
    texts.add(JSON.stringify(text).slice(1, -1));
  }
  if (ids.size === 0 && texts.size === 0) return undefined;
  return (text) => {
    for (const word of text.split(WORD_BREAK)) {
      if (ids.has(word) || ids.has(word.replace(/[.:]+$/, ''))) return true;
    }
    for (const needle of texts) if (text.includes(needle)) return true;
    return false;
  };
}
