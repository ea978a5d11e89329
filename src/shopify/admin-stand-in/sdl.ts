/**
 * The subset of Shopify's Admin GraphQL schema that print-bridge uses, with Shopify's own type, field and argument
 * names, so a query the stand-in accepts is one Shopify accepts. Anything outside this subset fails validation here,
 * which keeps the app from depending on fields nobody has checked.
 */
export const ADMIN_SDL = /* GraphQL */ `
scalar DateTime
scalar URL

interface Node {
  id: ID!
}

type PageInfo {
  hasNextPage: Boolean!
  hasPreviousPage: Boolean!
  startCursor: String
  endCursor: String
}

enum OrderSortKeys {
  CREATED_AT
  UPDATED_AT
  ID
}

enum OrderDisplayFulfillmentStatus {
  FULFILLED
  IN_PROGRESS
  ON_HOLD
  OPEN
  PARTIALLY_FULFILLED
  PENDING_FULFILLMENT
  RESTOCKED
  SCHEDULED
  UNFULFILLED
  REQUEST_DECLINED
}

enum FulfillmentOrderStatus {
  OPEN
  IN_PROGRESS
  CLOSED
  CANCELLED
  INCOMPLETE
  ON_HOLD
  SCHEDULED
}

enum FulfillmentHoldReason {
  AWAITING_PAYMENT
  AWAITING_RETURN_ITEMS
  HIGH_RISK_OF_FRAUD
  INCORRECT_ADDRESS
  INVENTORY_OUT_OF_STOCK
  ONLINE_STORE_POST_PURCHASE_CROSS_SELL
  OTHER
  UNKNOWN_DELIVERY_DATE
}

enum FulfillmentStatus {
  SUCCESS
  CANCELLED
  ERROR
  FAILURE
  OPEN
  PENDING
}

enum MetafieldOwnerType {
  ORDER
}

enum MetafieldsSetUserErrorCode {
  BLANK
  INVALID
  INVALID_TYPE
  INVALID_VALUE
  LESS_THAN_OR_EQUAL_TO
}

type Query {
  order(id: ID!): Order
  orders(first: Int, after: String, query: String, sortKey: OrderSortKeys = ID, reverse: Boolean = false): OrderConnection!
  fulfillmentOrder(id: ID!): FulfillmentOrder
  fulfillment(id: ID!): Fulfillment
}

type Order implements Node {
  id: ID!
  name: String!
  email: String
  createdAt: DateTime!
  updatedAt: DateTime!
  cancelledAt: DateTime
  note: String
  tags: [String!]!
  displayFulfillmentStatus: OrderDisplayFulfillmentStatus!
  lineItems(first: Int, after: String, reverse: Boolean = false): LineItemConnection!
  fulfillmentOrders(first: Int, after: String, reverse: Boolean = false): FulfillmentOrderConnection!
  fulfillments(first: Int): [Fulfillment!]!
  metafield(namespace: String, key: String!): Metafield
  metafields(first: Int, after: String, namespace: String): MetafieldConnection!
  number: Int!
  phone: String
  currencyCode: String!
  displayFinancialStatus: OrderDisplayFinancialStatus
  customAttributes: [Attribute!]!
  shippingAddress: MailingAddress
  shippingLines(first: Int, after: String, reverse: Boolean = false): ShippingLineConnection!
}

enum OrderDisplayFinancialStatus {
  PENDING
  AUTHORIZED
  PARTIALLY_PAID
  PARTIALLY_REFUNDED
  VOIDED
  PAID
  REFUNDED
  EXPIRED
}

type Attribute {
  key: String!
  value: String
}

type MailingAddress {
  name: String
  firstName: String
  lastName: String
  company: String
  address1: String
  address2: String
  city: String
  zip: String
  province: String
  provinceCode: String
  country: String
  countryCodeV2: String
  phone: String
}

type ShippingLine implements Node {
  id: ID!
  title: String!
  code: String
}

type ShippingLineConnection {
  nodes: [ShippingLine!]!
  edges: [ShippingLineEdge!]!
  pageInfo: PageInfo!
}

type ShippingLineEdge {
  cursor: String!
  node: ShippingLine!
}

type ProductVariant implements Node {
  id: ID!
}

type Product implements Node {
  id: ID!
  productType: String
}

type MoneyV2 {
  amount: String!
  currencyCode: String!
}

type MoneyBag {
  shopMoney: MoneyV2!
}

type OrderConnection {
  nodes: [Order!]!
  edges: [OrderEdge!]!
  pageInfo: PageInfo!
}

type OrderEdge {
  cursor: String!
  node: Order!
}

type LineItem implements Node {
  id: ID!
  name: String!
  title: String!
  sku: String
  variantTitle: String
  vendor: String
  quantity: Int!
  currentQuantity: Int!
  unfulfilledQuantity: Int!
  requiresShipping: Boolean!
  isGiftCard: Boolean!
  customAttributes: [Attribute!]!
  variant: ProductVariant
  product: Product
  originalUnitPriceSet: MoneyBag!
}

type LineItemConnection {
  nodes: [LineItem!]!
  edges: [LineItemEdge!]!
  pageInfo: PageInfo!
}

type LineItemEdge {
  cursor: String!
  node: LineItem!
}

type FulfillmentOrder implements Node {
  id: ID!
  status: FulfillmentOrderStatus!
  createdAt: DateTime!
  updatedAt: DateTime!
  orderId: ID!
  order: Order!
  lineItems(first: Int, after: String, reverse: Boolean = false): FulfillmentOrderLineItemConnection!
  fulfillAt: DateTime
  fulfillmentHolds: [FulfillmentHold!]!
}

type FulfillmentHold implements Node {
  id: ID!
  reason: FulfillmentHoldReason!
  reasonNotes: String
  displayReason: String!
  handle: String
  heldByRequestingApp: Boolean!
}

type FulfillmentOrderConnection {
  nodes: [FulfillmentOrder!]!
  edges: [FulfillmentOrderEdge!]!
  pageInfo: PageInfo!
}

type FulfillmentOrderEdge {
  cursor: String!
  node: FulfillmentOrder!
}

type FulfillmentOrderLineItem implements Node {
  id: ID!
  sku: String
  totalQuantity: Int!
  remainingQuantity: Int!
  lineItem: LineItem!
}

type FulfillmentOrderLineItemConnection {
  nodes: [FulfillmentOrderLineItem!]!
  edges: [FulfillmentOrderLineItemEdge!]!
  pageInfo: PageInfo!
}

type FulfillmentOrderLineItemEdge {
  cursor: String!
  node: FulfillmentOrderLineItem!
}

type Fulfillment implements Node {
  id: ID!
  name: String!
  status: FulfillmentStatus!
  createdAt: DateTime!
  updatedAt: DateTime!
  order: Order!
  totalQuantity: Int!
  trackingInfo(first: Int): [FulfillmentTrackingInfo!]!
  fulfillmentLineItems(first: Int, after: String, reverse: Boolean = false): FulfillmentLineItemConnection!
}

type FulfillmentTrackingInfo {
  company: String
  number: String
  url: URL
}

type FulfillmentLineItem implements Node {
  id: ID!
  quantity: Int!
  lineItem: LineItem!
}

type FulfillmentLineItemConnection {
  nodes: [FulfillmentLineItem!]!
  edges: [FulfillmentLineItemEdge!]!
  pageInfo: PageInfo!
}

type FulfillmentLineItemEdge {
  cursor: String!
  node: FulfillmentLineItem!
}

type Metafield implements Node {
  id: ID!
  namespace: String!
  key: String!
  type: String!
  value: String!
  ownerType: MetafieldOwnerType!
  createdAt: DateTime!
  updatedAt: DateTime!
}

type MetafieldConnection {
  nodes: [Metafield!]!
  edges: [MetafieldEdge!]!
  pageInfo: PageInfo!
}

type MetafieldEdge {
  cursor: String!
  node: Metafield!
}

type UserError {
  field: [String!]
  message: String!
}

type MetafieldsSetUserError {
  field: [String!]
  message: String!
  code: MetafieldsSetUserErrorCode
  elementIndex: Int
}

input FulfillmentInput {
  lineItemsByFulfillmentOrder: [FulfillmentOrderLineItemsInput!]!
  trackingInfo: FulfillmentTrackingInput
  notifyCustomer: Boolean = false
}

input FulfillmentOrderLineItemsInput {
  fulfillmentOrderId: ID!
  fulfillmentOrderLineItems: [FulfillmentOrderLineItemInput!]
}

input FulfillmentOrderLineItemInput {
  id: ID!
  quantity: Int!
}

input FulfillmentTrackingInput {
  company: String
  number: String
  url: URL
  numbers: [String!]
  urls: [URL!]
}

input MetafieldsSetInput {
  ownerId: ID!
  namespace: String
  key: String!
  type: String
  value: String!
}

input OrderInput {
  id: ID!
  note: String
  tags: [String!]
  email: String
}

type FulfillmentCreatePayload {
  fulfillment: Fulfillment
  userErrors: [UserError!]!
}

type FulfillmentTrackingInfoUpdatePayload {
  fulfillment: Fulfillment
  userErrors: [UserError!]!
}

type TagsAddPayload {
  node: Node
  userErrors: [UserError!]!
}

type TagsRemovePayload {
  node: Node
  userErrors: [UserError!]!
}

type MetafieldsSetPayload {
  metafields: [Metafield!]
  userErrors: [MetafieldsSetUserError!]!
}

type OrderUpdatePayload {
  order: Order
  userErrors: [UserError!]!
}

type Mutation {
  fulfillmentCreate(fulfillment: FulfillmentInput!, message: String): FulfillmentCreatePayload
  fulfillmentTrackingInfoUpdate(fulfillmentId: ID!, trackingInfoInput: FulfillmentTrackingInput!, notifyCustomer: Boolean): FulfillmentTrackingInfoUpdatePayload
  tagsAdd(id: ID!, tags: [String!]!): TagsAddPayload
  tagsRemove(id: ID!, tags: [String!]!): TagsRemovePayload
  metafieldsSet(metafields: [MetafieldsSetInput!]!): MetafieldsSetPayload
  orderUpdate(input: OrderInput!): OrderUpdatePayload
}
`;
