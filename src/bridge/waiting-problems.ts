import type { OrderLink, Problem } from '../orders/model.js';

/**
 * The problems an order waits with (waiting-orders.ts): their kinds, the readable reasons the order page and the
 * problems page show, and which of them a release clears.
 */

export const WAIT_KINDS = {
  storeNotConnected: 'store-not-connected',
  noMapping: 'no-mapping',
  /** Neither an account of the store's own nor the operator's (PRINT_API_*) is configured. */
  noPrintAccount: 'no-print-account',
  /** The store is in test mode: mapped and validated at the print service, never created, until it goes live. */
  testMode: 'test-mode',
  /**
   * A fulfillment order the app would print is ON_HOLD in Shopify (a fraud check, a payment to clear, an address to
   * fix: anyone's hold but the app's own): nothing is printed until it is released.
   */
  shopifyHold: 'shopify-hold',
  /** Shopify recommends cancelling the order (`Order.risk.recommendation`), or investigating it where the store chose that. */
  risk: 'risk-recommendation',
} as const;

/** Problems a release clears: the submit job that follows reports afresh whatever still holds. */
export const RELEASED_KINDS = new Set<string>([WAIT_KINDS.storeNotConnected, WAIT_KINDS.noMapping, WAIT_KINDS.noPrintAccount, WAIT_KINDS.testMode, 'mapping', 'source-order-id']);

export function storeNotConnectedProblem(shop: string, at: string): Problem {
  return {
    kind: WAIT_KINDS.storeNotConnected,
    message: `store not connected: print-bridge has no Admin API access to ${shop} (the app is not installed there, or was uninstalled), so nothing is sent to the printer. Connect the store (install the app, or run print-bridge shops add ${shop} --token <token>): the order then goes out by itself.`,
    at,
  };
}

export function noMappingProblem(shop: string, at: string): Problem {
  return {
    kind: WAIT_KINDS.noMapping,
    message: `no mapping file serves ${shop}. Add its domain to a file's shops (or add a "*" file), or fix the file meant for it if the Mappings page lists problems in it (a file that never loaded serves no store): the order is then mapped and sent by itself.`,
    at,
  };
}

export function noPrintAccountProblem(shop: string, at: string): Problem {
  return {
    kind: WAIT_KINDS.noPrintAccount,
    message: `no print-service account serves ${shop}: connect the store's account in the app's Settings (or print-bridge shops print-account ${shop} ...), or configure the operator's (PRINT_API_*). The order then goes out by itself.`,
    at,
  };
}

export function testModeProblem(shop: string, at: string, valid: boolean): Problem {
  return {
    kind: WAIT_KINDS.testMode,
    message: `${shop} is in test mode: the order was mapped and ${valid ? 'the print service found it valid' : 'checked by the print service (see its problems)'}, and nothing was created. It goes out by itself, once, when the store goes live (Settings → Go live, or print-bridge shops mode ${shop} live).`,
    at,
  };
}

export function hasProblem(link: Pick<OrderLink, 'problems'>, kind: string): boolean {
  return link.problems.some((p) => p.kind === kind);
}

export function sameProblems(a: readonly Problem[], b: readonly Problem[]): boolean {
  const key = (list: readonly Problem[]) => list.map((p) => `${p.subject ?? ''}\u0000${p.message}`).sort().join('\u0001');
  return key(a) === key(b);
}

/** Whether the order waits on Shopify's judgement (a hold, a risk recommendation) rather than on print-bridge. */
export function waitsForShopify(link: Pick<OrderLink, 'problems'>): boolean {
  return link.problems.some((p) => p.kind === WAIT_KINDS.shopifyHold || p.kind === WAIT_KINDS.risk);
}
