/**
 * print-bridge's Shopify Flow extensions as the app's code knows them: the trigger handles and the keys of their
 * fields (the extensions' `shopify.extension.toml` declare the same; extensions.test.ts holds the two together), and
 * the actions with the route Flow posts each one to.
 */

export const FLOW_TRIGGERS = {
  sent: 'print-order-sent',
  statusChanged: 'print-status-changed',
  needsAttention: 'print-order-needs-attention',
} as const;

export type FlowTriggerHandle = (typeof FLOW_TRIGGERS)[keyof typeof FLOW_TRIGGERS];

export const FLOW_TRIGGER_HANDLES: readonly FlowTriggerHandle[] = Object.values(FLOW_TRIGGERS);

export function isFlowTriggerHandle(handle: string): handle is FlowTriggerHandle {
  return (FLOW_TRIGGER_HANDLES as readonly string[]).includes(handle);
}

/**
 * The keys of the triggers' fields as a workflow reads them. Flow allows only letters and spaces in a trigger field's
 * key; the order reference travels as `order_id`, which is how Flow names an `order_reference` field in a payload.
 */
export const TRIGGER_FIELDS = {
  orderId: 'order_id',
  status: 'status',
  carrier: 'carrier',
  trackingNumber: 'tracking number',
  trackingUrl: 'tracking url',
  reason: 'reason',
  kind: 'kind',
} as const;

/** The words of the `status` field of print-status-changed. */
export const FLOW_STATUS_WORDS = ['received', 'print ready', 'shipped', 'cancelled'] as const;
export type FlowStatusWord = (typeof FLOW_STATUS_WORDS)[number];

/** The words of the `kind` field of print-order-needs-attention. */
export const ATTENTION_KINDS = ['held', 'errored at the printer', 'changed after submission'] as const;
export type AttentionKind = (typeof ATTENTION_KINDS)[number];

/**
 * Shopify refuses a `flowTriggerReceive` whose payload's JSON is over this many bytes ("Properties size exceeds the
 * limit of 50000 bytes"): the app keeps well under it by cutting free texts (trigger-payloads.ts).
 */
export const FLOW_PAYLOAD_LIMIT_BYTES = 50_000;

export const FLOW_ACTIONS = ['send-now', 'resubmit', 'cancel', 'keep-as-sent'] as const;
export type FlowActionName = (typeof FLOW_ACTIONS)[number];

export function isFlowActionName(name: string): name is FlowActionName {
  return (FLOW_ACTIONS as readonly string[]).includes(name);
}

export const FLOW_ACTION_PATH_PREFIX = '/flow/actions/';
export const FLOW_LIFECYCLE_PATH = '/flow/lifecycle';

export function flowActionPath(name: FlowActionName): string {
  return `${FLOW_ACTION_PATH_PREFIX}${name}`;
}

/** Who the order's history names for what a workflow did. */
export const FLOW_ACTOR = 'Shopify Flow';
