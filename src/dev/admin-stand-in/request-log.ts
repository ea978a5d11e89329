/** The stand-in's log of the calls it answered (GraphQL and OAuth), for tests and `GET /_stand-in/requests`. */

export interface RequestLogEntry {
  at: string;
  shop: string | null;
  apiVersion: string;
  /** HTTP status of the answer, or 0 for a dropped connection. */
  status: number;
  /** `query` or `mutation`, with its root fields, e.g. `mutation fulfillmentCreate`. */
  operation: string | null;
  requestedQueryCost: number | null;
  /** What the query cost once it ran (the bucket got the rest back); null when it did not run. */
  actualQueryCost: number | null;
  throttled: boolean;
  variables: Record<string, unknown> | null;
  /** The GraphQL document as sent. */
  document?: string;
  /** Why Shopify's schema refused the document or its variables (nothing ran). */
  refused?: string[];
}

/** The newest calls, at most `size` of them. */
export class RequestLog {
  private readonly entries: RequestLogEntry[] = [];

  constructor(private readonly size: number) {}

  record(entry: RequestLogEntry): void {
    this.entries.push(entry);
    if (this.entries.length > this.size) this.entries.splice(0, this.entries.length - this.size);
  }

  list(): RequestLogEntry[] {
    return this.entries.map((e) => ({ ...e }));
  }

  clear(): void {
    this.entries.length = 0;
  }
}
