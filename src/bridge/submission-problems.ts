import { replaceProblems, settleIn } from '../orders/transitions.js';
import type { OrderLink, Problem } from '../orders/model.js';
import type { BridgeDeps } from './ports.js';
import { WAIT_KINDS } from './waiting-orders.js';

/** Keeps the reasons on the order for the merchant, and has the Shopify order tagged so the problem shows there too. */
export async function recordProblems(
  deps: BridgeDeps,
  link: OrderLink,
  status: 'held' | 'error',
  kind: string,
  problems: readonly { message: string; subject?: string }[],
): Promise<void> {
  const at = deps.clock().toISOString();
  const entries: Problem[] = problems.map((p) => ({ kind, message: p.message, subject: p.subject, at }));
  await deps.store.update(link.shop, link.orderId, (current) => {
    if (!current) return undefined;
    const { link: settled, moved } = settleIn(current, status, at);
    return {
      // Reaching this step means the store is connected and a mapping serves it: those waits are over.
      link: replaceProblems(settled, (p) => p.kind === kind || isWaitKind(p.kind), entries),
      history: [
        {
          event: kind === 'mapping' ? 'held: mapping problems' : `${kind} failed`,
          source: 'worker',
          status: moved ? status : undefined,
          detail: problems.map((p) => (p.subject ? `${p.subject}: ${p.message}` : p.message)).join('; '),
        },
      ],
    };
  });
  await deps.scheduler.syncShopify(link.shop, link.orderId);
}

export function isWaitKind(kind: string): boolean {
  return (Object.values(WAIT_KINDS) as string[]).includes(kind);
}
