import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import express, { type Request, type Response, type Router } from 'express';
import type { Logger } from 'pino';
import type { UnreadablePostback } from '../storage/order-store.js';
import { parsePostback, printEventHash } from '../print-service/postback.js';
import type { PrintEventJob } from '../queue/queues.js';

export interface PostbackRouteDeps {
  /** POSTBACK_TOKEN as a list: every one is accepted, so a new token can be rolled out before the old is removed. */
  tokens: readonly string[];
  /** POSTBACK_BASIC_AUTH (`user:password`): when set, triggers on the operator-wide token must send it too. */
  basicAuth?: string;
  /** The store a per-store postback token belongs to (while valid); its events act on that store's orders only. */
  shopOfToken?: (token: string) => Promise<string | undefined>;
  /** Resolves once the job is durably in Redis (`enqueuePrintEvent(queues.events, job)`). */
  enqueue: (job: PrintEventJob) => Promise<unknown>;
  /** Keeps a body that could not be understood (`store.keepUnreadablePostback`). */
  keepUnreadable: (entry: Omit<UnreadablePostback, 'id'>) => Promise<unknown>;
  logger: Logger;
  clock?: () => Date;
  /** Largest body accepted (default 1 MiB). */
  limit?: string;
  /** Called once per postback with the event kind (or `unknown`) and what became of it; for metrics. */
  onReceived?: (event: string, outcome: 'queued' | 'unauthorized' | 'not-understood' | 'unavailable') => void;
}

/**
 * `POST /postbacks/:token` (DESIGN section 5). Authenticates, parses, queues and answers; the event is applied to
 * Shopify by the events worker. 2xx only once queued, 503 when Redis cannot take it (the service's trigger retries),
 * 401 for an unknown token or wrong basic auth with nothing stored, 400 for a body that cannot be understood, which
 * is kept for an operator.
 */
export function createPostbackRouter(deps: PostbackRouteDeps): Router {
  const router = express.Router();
  const tokens = deps.tokens.filter((t) => t.length > 0).map(digest);
  const basic = deps.basicAuth ? digest(deps.basicAuth) : undefined;
  const clock = deps.clock ?? (() => new Date());

  const readRawBody = express.raw({ type: () => true, limit: deps.limit ?? '1mb' });
  // The body is read only once the token (and basic auth) are right: a stranger cannot make the app read and buffer
  // a megabyte per request. A body over the limit is a 413 from the parser, answered as JSON by the app's handler.
  const readBody = (req: Request, res: Response) =>
    new Promise<void>((resolve, reject) => readRawBody(req, res, (error?: unknown) => (error ? reject(error as Error) : resolve())));

  router.post('/postbacks/:token', async (req: Request, res: Response) => {
    const log = deps.logger.child({ route: 'postbacks' });
    const raw = String(req.params.token ?? '');
    const given = digest(raw);
    // Every token is compared, whichever matches, so the time taken does not tell which one is close.
    let known = false;
    for (const t of tokens) known = timingSafeEqual(t, given) || known;
    // A store's own token is looked up by its hash (src/shops/settings-store.ts).
    let shop: string | undefined;
    if (!known && deps.shopOfToken) {
      try {
        shop = await deps.shopOfToken(raw);
      } catch (error) {
        deps.onReceived?.('unknown', 'unavailable');
        log.error({ err: error }, 'could not look up a postback token');
        res.status(503).json({ ok: false, error: 'cannot check the postback token now; try again' });
        return;
      }
    }
    if (!known && !shop) {
      deps.onReceived?.('unknown', 'unauthorized');
      log.warn({ ip: req.ip }, 'postback with an unknown token refused');
      res.status(401).json({ ok: false, error: 'unknown postback token' });
      return;
    }
    // The operator's basic auth guards the operator-wide token; a store's token is its own secret (its merchant sets
    // up the triggers and must not be handed the operator's credentials).
    if (!shop && basic && !basicAuthMatches(req.get('authorization'), basic)) {
      deps.onReceived?.('unknown', 'unauthorized');
      log.warn({ ip: req.ip }, 'postback without the right basic auth refused');
      res.set('www-authenticate', 'Basic realm="print-bridge postbacks"').status(401).json({ ok: false, error: 'basic auth required' });
      return;
    }

    await readBody(req, res);
    const body = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
    const receivedAt = clock().toISOString();
    const parsed = parsePostback(body);
    if (!parsed.ok) {
      try {
        await deps.keepUnreadable({ receivedAt, headers: { ...safeHeaders(req.headers), ...(shop ? { 'x-print-bridge-store': shop } : {}) }, body, error: parsed.error });
      } catch (error) {
        deps.onReceived?.('unknown', 'unavailable');
        log.error({ err: error }, 'could not keep an unreadable postback');
        res.status(503).json({ ok: false, error: 'cannot store the postback now; try again' });
        return;
      }
      deps.onReceived?.('unknown', 'not-understood');
      log.warn({ reason: parsed.error }, 'postback not understood; kept for an operator');
      res.status(400).json({ ok: false, error: `postback not understood: ${parsed.error}` });
      return;
    }

    const hash = printEventHash(parsed.event);
    try {
      await deps.enqueue({ event: parsed.event, receivedAt, hash, repairs: parsed.repairs, ...(shop ? { shop } : {}) });
    } catch (error) {
      deps.onReceived?.(parsed.event.kind, 'unavailable');
      log.error({ err: error }, 'could not queue a postback');
      res.status(503).json({ ok: false, error: 'cannot queue the postback now; try again' });
      return;
    }
    deps.onReceived?.(parsed.event.kind, 'queued');
    log.debug({ event: parsed.event.kind, sourceOrderId: parsed.event.sourceOrderId, repairs: parsed.repairs }, 'postback queued');
    res.status(202).json({ ok: true, event: parsed.event.kind, id: hash, ...(parsed.repairs.length ? { repaired: parsed.repairs } : {}) });
  });
  return router;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

function basicAuthMatches(header: string | undefined, expected: Buffer): boolean {
  const match = /^Basic\s+(\S+)\s*$/i.exec(header ?? '');
  const decoded = match ? Buffer.from(match[1]!, 'base64').toString('utf8') : '';
  return timingSafeEqual(digest(decoded), expected);
}

const SECRET_HEADERS = /^(authorization|proxy-authorization|cookie|set-cookie)$|token|secret|signature|password|api-key|apikey/i;

/** The request headers an operator may see: no credentials. */
export function safeHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || SECRET_HEADERS.test(name)) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
