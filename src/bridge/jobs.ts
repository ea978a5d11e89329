import { z } from 'zod';
import { printEventSchema } from '../print-service/postback.js';

/**
 * The jobs the use cases take, beside their ports: the queues (src/queue/) carry them, and parse them with these
 * schemas when a worker takes one (the data crossed a process boundary through Redis and may have been written by an
 * older version of the app).
 */

export const webhookJobSchema = z.object({
  topic: z.string(),
  shop: z.string(),
  webhookId: z.string(),
  apiVersion: z.string().optional(),
  receivedAt: z.string(),
  /**
   * Jobs queued by versions before issue 12 carried the raw body; now it is kept apart (src/storage/webhook-bodies.ts)
   * so no customer data lives in job data, and the worker reads it by shop and webhook id.
   */
  body: z.string().optional(),
});
/** A webhook's job data: ids only. */
export type WebhookJobData = z.infer<typeof webhookJobSchema>;
/** A webhook with its raw body (ids above 2^53 must survive until a parser that keeps them exact reads it). */
export type WebhookJob = WebhookJobData & { body: string };

export const printEventJobSchema = z.object({
  event: printEventSchema,
  receivedAt: z.string(),
  /** printEventHash of the event: the job id, so an identical postback delivered again is one job. */
  hash: z.string(),
  /** What the parser repaired to read the body (docs/triggers.md), for the history. */
  repairs: z.array(z.string()).default([]),
  /**
   * The store whose postback token delivered it (or whose order the reconciliation read it for): the event may act on
   * that store's orders only. Absent: the operator-wide POSTBACK_TOKEN, which acts only on stores on the env account.
   */
  shop: z.string().optional(),
});
export type PrintEventJob = z.infer<typeof printEventJobSchema>;

