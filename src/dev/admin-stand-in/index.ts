export {
  startAdminStandIn,
  SHOP_DOMAIN_HEADER,
  ACCESS_TOKEN_HEADER,
  type AdminStandIn,
  type AdminStandInOptions,
  type ManualFulfillmentInput,
  type RequestLogEntry,
  type InjectedFailure,
  type ThrottleStatus,
} from './server.js';
export { seedOrder, parseRestOrder, SeedError, type RestOrder } from './seed.js';
export { STAND_IN_APP_NAMESPACE, resolveAppNamespace, StandInStore, type OrderSnapshot, type OrderRecord, type FulfillmentRecord, type UserError } from './store.js';
export { requestedQueryCost, LeakyBucket, MUTATION_COST, SINGLE_QUERY_MAX_COST } from './cost.js';
export { type HoldInput, type ReleaseInput, type ScheduleInput, type SentWebhook, type WebhookTarget, type FulfillmentOrderTopic } from './holds.js';
export { signSessionToken, verifySessionToken, type StandInApp } from './oauth.js';
