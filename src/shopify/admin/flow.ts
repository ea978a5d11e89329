import { z } from 'zod';
import { userErrorSchema, type AdminRequests } from './request.js';

/**
 * Starts the store's workflows that begin with one of the app's Flow triggers: `flowTriggerReceive(handle, payload)`.
 * Shopify answers userErrors for a payload it refuses (over its size limit, not matching the trigger's fields) or a
 * handle the app has no trigger for; they are thrown as ShopifyUserError (not retryable: the same payload is refused
 * again).
 */
const FLOW_TRIGGER_RECEIVE = /* GraphQL */ `
  mutation PrintBridgeFlowTriggerReceive($handle: String!, $payload: JSON!) {
    flowTriggerReceive(handle: $handle, payload: $payload) { userErrors { field message } }
  }
`;

const flowTriggerReceiveSchema = z.object({ flowTriggerReceive: z.object({ userErrors: z.array(userErrorSchema) }).nullable() });

export async function flowTriggerReceive(api: AdminRequests, handle: string, payload: Record<string, unknown>): Promise<void> {
  // Not idempotent in Shopify (each call starts the workflows again): never sent twice after an unknown outcome.
  const data = await api.call('flowTriggerReceive', FLOW_TRIGGER_RECEIVE, { handle, payload }, flowTriggerReceiveSchema, false);
  api.throwUserErrors('flowTriggerReceive', handle, data.flowTriggerReceive?.userErrors ?? []);
}
