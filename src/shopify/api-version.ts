/**
 * The Shopify Admin API version print-bridge is pinned to: its webhooks (shopify.app.toml), its Admin API calls, and the
 * schema the Admin stand-in validates every document against (Shopify's own, `npm run shopify:schema -- 2026-10`).
 * Moving it means: run the schema script for the new version, run the suite, and read what changed in the fields the
 * app reads (test/shopify/admin-documents.test.ts lists every document).
 */
export const PINNED_ADMIN_API_VERSION = '2026-10';
