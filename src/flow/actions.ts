import type { Logger } from 'pino';
import { cancelOrderByOperator, keepAsSent, resubmitOrder, type OperatorActionDeps, type OperatorActionInput, type OperatorActionOutcome } from '../bridge/operator-actions.js';
import { sendOrderNow } from '../bridge/send-now.js';
import type { OrderLink } from '../orders/model.js';
import { CHANGED_AFTER_SUBMISSION } from '../orders/printed-lines.js';
import type { FlowActionAnswer, FlowActionRuns } from './action-runs.js';
import { FLOW_ACTOR, type FlowActionName } from './definitions.js';
import { flowActionRequestSchema, parseFlowBody } from './flow-requests.js';

/**
 * A Flow action's run (its signature already checked): the order the signed body names, of the store it names and of
 * no other, gets the same use case as the app's own buttons, with "Shopify Flow" in its history.
 *
 * Flow reads the answer's status: 200 done; 202 accepted but not done, sent again later with the same run id (up to a
 * day); any other 4xx a failure it shows with the message and does not send again. An order already as the action
 * would leave it answers 200, since a workflow may run an action on an order twice.
 */

export interface FlowActionDeps {
  actions: OperatorActionDeps;
  runs: FlowActionRuns;
  logger: Logger;
}

type UseCase = (deps: OperatorActionDeps, input: OperatorActionInput) => Promise<OperatorActionOutcome>;

const USE_CASES: Record<FlowActionName, UseCase> = {
  'send-now': sendOrderNow,
  resubmit: resubmitOrder,
  cancel: cancelOrderByOperator,
  'keep-as-sent': keepAsSent,
};

/** Statuses of an order that reached the printer (or is being sent): "send now" has nothing left to do. */
const SENT: ReadonlySet<string> = new Set(['submitting', 'submitted', 'received', 'print-ready', 'partially-shipped', 'shipped']);

/** What the order already is when the action would change nothing: its answer is 200 with this message. */
function alreadyDone(action: FlowActionName, link: OrderLink): string | undefined {
  const name = link.orderName ?? link.orderId;
  switch (action) {
    case 'send-now':
      return SENT.has(link.status) ? `${name} is already ${link.status}; nothing to send.` : undefined;
    case 'cancel':
      if (link.status === 'cancelled') return `${name} is already cancelled.`;
      return link.cancelRequested ? `Cancellation of ${name} was already requested; the print service decides.` : undefined;
    case 'keep-as-sent':
      return SENT.has(link.status) && !link.problems.some((p) => p.kind === CHANGED_AFTER_SUBMISSION) ? `${name} has no change after submission; it is kept as sent.` : undefined;
    case 'resubmit':
      return undefined;
  }
}

export function answerOf(outcome: OperatorActionOutcome): FlowActionAnswer {
  switch (outcome.kind) {
    case 'done':
      return { status: 200, message: outcome.message };
    case 'refused':
      return { status: 422, message: outcome.message };
    case 'not-found':
      return { status: 404, message: outcome.message };
    case 'stale':
      // Changed while the action ran: the next delivery acts on what the order is then.
      return { status: 202, message: outcome.message };
  }
}

export async function runFlowAction(deps: FlowActionDeps, action: FlowActionName, rawBody: Buffer): Promise<FlowActionAnswer> {
  const parsed = parseFlowBody(flowActionRequestSchema, rawBody);
  if (!parsed.ok) return { status: 400, message: `print-bridge could not read the action: ${parsed.reason}` };
  const shop = parsed.value.shopify_domain;
  const orderId = parsed.value.properties.order_id;
  const runId = parsed.value.action_run_id;
  const log = deps.logger.child({ flowAction: action, shop, orderId, actionRunId: runId });
  let claim;
  try {
    claim = await deps.runs.claim(shop, runId);
  } catch (error) {
    log.warn({ err: error }, 'Flow action run could not be recorded; Flow is asked to send it again');
    return { status: 202, message: 'print-bridge is busy; the action is tried again later.' };
  }
  if (claim.kind === 'answered') return claim.answer;
  if (claim.kind === 'running') return { status: 202, message: 'print-bridge is still working on this action run.' };

  let answer: FlowActionAnswer;
  try {
    answer = await act(deps, action, { shop, orderId, actor: FLOW_ACTOR });
  } catch (error) {
    log.warn({ err: error }, 'Flow action failed for now; Flow is asked to send it again');
    answer = { status: 202, message: 'print-bridge could not act now; the action is tried again later.' };
  }
  // A "try later" is not kept: the next delivery of the run does the work.
  await (answer.status === 202 ? deps.runs.forget(shop, runId) : deps.runs.finish(shop, runId, answer)).catch((error: unknown) =>
    log.warn({ err: error }, 'Flow action run answer not recorded'),
  );
  log.info({ status: answer.status }, 'Flow action answered');
  return answer;
}

async function act(deps: FlowActionDeps, action: FlowActionName, input: OperatorActionInput): Promise<FlowActionAnswer> {
  // The store the signed body names, and only its orders: another store's order id is not found here.
  const link = await deps.actions.store.get(input.shop, input.orderId);
  if (!link) return { status: 404, message: `print-bridge has no order ${input.orderId} of ${input.shop}.` };
  const already = alreadyDone(action, link);
  if (already) return { status: 200, message: already };
  return answerOf(await USE_CASES[action](deps.actions, { ...input, expectedVersion: link.version }));
}
