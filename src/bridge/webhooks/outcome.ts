/** What a webhook's use case did: the job's result, kept by the queue and shown on the failed-jobs page. */
export type WebhookOutcome =
  | { kind: 'scheduled'; orderId: string; submitAt: string }
  /** Due now and submitted by the webhook's own job (BridgeDeps.submitDueOrdersInline): what the submission did. */
  | { kind: 'submission'; orderId: string; outcome: string }
  /** Due now, and refused for a reason that will not pass by itself: recorded on the order (held, error). */
  | { kind: 'not-submitted'; orderId: string; reason: string }
  | { kind: 'recorded'; orderId: string; detail: string }
  | { kind: 'stale'; orderId: string }
  | { kind: 'cancelled-before-submission'; orderId: string }
  | { kind: 'cancel-requested'; orderId: string }
  | { kind: 'amend-requested'; orderId: string }
  | { kind: 'uninstalled'; droppedJobs: number; sessions: number }
  | { kind: 'redacted'; orders: number }
  | { kind: 'data-request'; orders: number }
  | { kind: 'own-write'; orderId: string }
  | { kind: 'rejected'; reason: string };
