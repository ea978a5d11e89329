import type { JobType, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { jobId } from './queues.js';

/**
 * What BullMQ keeps of jobs after they ran, and what redaction erases there. A finished job stays in Redis (a day when
 * completed, a month when failed) with its data, its result or error and stack trace; each queue's `events` stream
 * keeps its last 10,000 events, with job ids, results and failure reasons. Job data carries ids only, but ids name a
 * store and its orders, and results and errors quote what a problem said (an artwork URL a customer typed, with their
 * name in it). Records and events that mention a redacted store or order are removed; nothing is rewritten in place.
 */

/** What to look for. `ids` match as whole words (a job id's parts, a JSON value); `texts` anywhere. */
export interface JobMentions {
  /** Shop domains, order gids, sourceOrderIds, print ids, webhook ids. */
  ids: readonly string[];
  /** Longer free text that may be quoted in a result or an error (a problem's message). */
  texts?: readonly string[];
}

export interface ErasedJobRecords {
  /** Job records removed. */
  jobs: number;
  /** Records that mention it but could not be removed: running right now (a redaction job's own). */
  running: number;
  /** Event-stream entries deleted. */
  events: number;
}

/** Finished jobs only: what a customer's redaction erases (jobs still to run carry ids and no text). */
export const FINISHED_STATES: readonly JobType[] = ['completed', 'failed'];
/** Every job not running now: a store's redaction leaves none of its jobs to run later. */
export const EVERY_IDLE_STATE: readonly JobType[] = ['completed', 'failed', 'delayed', 'waiting', 'prioritized', 'waiting-children'];

const PAGE = 500;
/** A shorter id (a sourceOrderId such as `1001`) would match other stores' records by chance. */
const MIN_ID_LENGTH = 6;
/** Word boundaries in job ids (`submit|shop|order|0`), JSON and messages; `:` and `/` belong to gids. */
const WORD_BREAK = /[\s"'\\|,;()[\]{}<>]+/;

export async function eraseJobRecords(
  redis: Redis,
  queues: readonly Queue[],
  mentions: JobMentions,
  states: readonly JobType[],
): Promise<ErasedJobRecords> {
  const mentioned = mentionMatcher(mentions);
  const erased: ErasedJobRecords = { jobs: 0, running: 0, events: 0 };
  if (!mentioned) return erased;
  for (const queue of queues) {
    const ids = await matchingJobIds(queue, states, mentioned);
    for (const id of ids) {
      // 0: locked by a worker that runs it now; it finishes and is removed (or kept) by its own options.
      if ((await queue.remove(id)) === 1) erased.jobs += 1;
      else erased.running += 1;
    }
    // After the removals: each adds a `removed` event naming the job, deleted here with the rest.
    const stream = queue.keys.events;
    if (stream) erased.events += await deleteEvents(redis, stream, (entry) => ids.has(entry.jobId ?? '') || entry.values.some(mentioned));
  }
  return erased;
}

/** Collected first, removed after: removing while paging would shift the pages. */
async function matchingJobIds(queue: Queue, states: readonly JobType[], mentioned: (text: string) => boolean): Promise<Set<string>> {
  const ids = new Set<string>();
  for (let start = 0; ; start += PAGE) {
    const jobs = await queue.getJobs([...states], start, start + PAGE - 1, true);
    if (jobs.length === 0) return ids;
    for (const job of jobs) {
      if (!job?.id) continue;
      const record = JSON.stringify([job.id, job.name, job.data, job.returnvalue, job.failedReason, job.stacktrace, job.opts]);
      if (mentioned(record)) ids.add(job.id);
    }
  }
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

/** Undefined when there is nothing to look for. */
export function mentionMatcher(mentions: JobMentions): ((text: string) => boolean) | undefined {
  const ids = new Set<string>();
  for (const id of mentions.ids) {
    if (id.length < MIN_ID_LENGTH) continue;
    // As given, and as it reads inside a job id (jobId() turns ':' into '_').
    ids.add(id);
    ids.add(jobId(id));
  }
  const texts = new Set<string>();
  for (const text of mentions.texts ?? []) {
    if (text.length < MIN_ID_LENGTH) continue;
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
