import { moveTo, ofKind, replaceProblems } from '../orders/transitions.js';
import { PrintServiceBadRequestError } from '../print-service/errors.js';
import type { OrderLink } from '../orders/model.js';
import type { BridgeDeps, PrintServicePort } from './ports.js';
import { isSubmittedStatus } from '../orders/status.js';
import { testModeProblem, WAIT_KINDS } from './waiting-orders.js';
import type { PrintOrder } from '../print-service/schema.js';
import type { SubmitShopifyOutcome } from './submit-shopify-order.js';

/**
 * Test mode: the mapped order is validated at the print service (never created), and the order waits with what would
 * have been sent and the service's verdict, until the store goes live. Run again, it records the newest verdict.
 */
export async function testRun(deps: BridgeDeps, link: OrderLink, service: PrintServicePort, order: PrintOrder, orderName: string): Promise<SubmitShopifyOutcome> {
  let problems: { subject?: string; message: string }[] = [];
  try {
    await service.validate(order);
  } catch (error) {
    if (!(error instanceof PrintServiceBadRequestError)) throw error;
    problems = error.serviceError.validations?.length
      ? error.serviceError.validations.map((v) => ({ subject: v.path, message: v.message }))
      : [{ message: error.serviceError.message }];
  }
  const at = deps.clock().toISOString();
  const valid = problems.length === 0;
  // Recorded first: whoever sees the test run on the order sees the checklist's step done too.
  if (valid) await deps.printAccounts.recordTestValidated?.(link.shop);
  const wait = testModeProblem(link.shop, at, valid);
  const validation = problems.map((p) => ({ kind: 'validation', subject: p.subject, message: p.message, at }));
  const { link: waiting } = await deps.store.update(link.shop, link.orderId, (current) => {
    if (!current || isSubmittedStatus(current.status) || current.status === 'cancelled' || current.status === 'submitting' || current.status === 'not-printed') return undefined;
    const { link: next, moved } = moveTo(current, 'waiting', at);
    return {
      link: { ...replaceProblems(next, ofKind(WAIT_KINDS.testMode, 'validation', 'mapping'), [wait, ...validation]), testRun: { at, valid, order, problems: problems.map((p) => (p.subject ? `${p.subject}: ${p.message}` : p.message)) } },
      history: [
        {
          event: 'waiting: test mode',
          source: 'worker',
          status: moved ? 'waiting' : undefined,
          detail: valid
            ? `the print service found ${order.orderData.sourceOrderId ?? orderName} valid; nothing was created`
            : `the print service refused it, nothing was created: ${problems.map((p) => (p.subject ? `${p.subject}: ${p.message}` : p.message)).join('; ')}`,
        },
      ],
    };
  });
  // The wait shows in Shopify as print-bridge's own hold (app-holds.ts) until the store goes live.
  if (waiting && link.status !== 'waiting') await deps.scheduler.syncShopify(link.shop, link.orderId);
  deps.logger.info({ shop: link.shop, orderId: link.orderId, valid }, 'test mode: order validated at the print service, nothing created');
  return { kind: 'waiting', reason: WAIT_KINDS.testMode };
}
