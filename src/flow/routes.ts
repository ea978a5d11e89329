import express, { type Express, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { runFlowAction, type FlowActionDeps } from './actions.js';
import { FLOW_ACTION_PATH_PREFIX, FLOW_LIFECYCLE_PATH, isFlowActionName } from './definitions.js';
import type { FlowSignature } from './flow-requests.js';
import { receiveLifecycleCallback } from './lifecycle.js';
import type { FlowTriggerRepository } from './trigger-repository.js';

/**
 * Shopify Flow's requests: `POST /flow/actions/:action` (an action's run) and `POST /flow/lifecycle` (a trigger
 * enabled or disabled in a store). Each raw body is signed with the app's secret; a request whose signature does not
 * match is answered 401 before any of its body is read as JSON, and changes nothing.
 */
export interface FlowRouteDeps {
  signature: FlowSignature;
  actions: Omit<FlowActionDeps, 'logger'>;
  triggers: FlowTriggerRepository;
  logger: Logger;
}

/** Flow's bodies are a few hundred bytes: the order reference and a handful of ids. */
const FLOW_BODY_LIMIT = '64kb';

export function mountFlowRoutes(app: Express, deps: FlowRouteDeps): void {
  const logger = deps.logger.child({ route: 'flow' });
  const raw = express.raw({ type: () => true, limit: FLOW_BODY_LIMIT });
  const bodyOf = (req: Request) => (Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
  const signed = (req: Request, res: Response, what: string): Buffer | undefined => {
    const body = bodyOf(req);
    if (deps.signature(body, req.headers)) return body;
    logger.warn({ what }, 'Flow request with a wrong or missing signature; refused, nothing done');
    res.status(401).json({ message: 'the request is not signed with the app’s secret' });
    return undefined;
  };

  app.post(`${FLOW_ACTION_PATH_PREFIX}:action`, raw, async (req: Request, res: Response) => {
    const action = String(req.params.action ?? '');
    if (!isFlowActionName(action)) {
      res.status(404).json({ message: `print-bridge has no Flow action ${action.slice(0, 40)}` });
      return;
    }
    const body = signed(req, res, `action ${action}`);
    if (!body) return;
    const answer = await runFlowAction({ ...deps.actions, logger }, action, body);
    res.status(answer.status).json({ message: answer.message });
  });

  app.post(FLOW_LIFECYCLE_PATH, raw, async (req: Request, res: Response) => {
    const body = signed(req, res, 'lifecycle');
    if (!body) return;
    try {
      const result = await receiveLifecycleCallback({ triggers: deps.triggers, logger }, body);
      if (result.status === 400) {
        res.status(400).json({ message: result.reason });
        return;
      }
      res.status(200).json({ ok: true, outcome: result.outcome });
    } catch (error) {
      // Flow lets the merchant enable the workflow only after a 2xx: a failure here must say so, not pretend.
      logger.error({ err: error }, 'Flow lifecycle callback not recorded');
      res.status(503).json({ message: 'not recorded; try again' });
    }
  });
}
