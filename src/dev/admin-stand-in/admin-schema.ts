import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { buildClientSchema, type GraphQLSchema, type IntrospectionQuery } from 'graphql';
import { PINNED_ADMIN_API_VERSION } from '../../shopify/api-version.js';

/**
 * Shopify's own Admin GraphQL schema, as Shopify publishes it (the introspection `@shopify/dev-mcp` ships, committed
 * by `npm run shopify:schema -- VERSION`): the stand-in validates every document and variable against it, so a field,
 * argument or input Shopify would refuse is refused here too, and the stand-in's resolvers answer the part the app uses.
 */

/** The Admin API version the app is pinned to and the stand-in's schema is Shopify's of. */
export const ADMIN_SCHEMA_VERSION = PINNED_ADMIN_API_VERSION;

export const SCHEMA_DIR = fileURLToPath(new URL('./schema/', import.meta.url));

export function schemaFile(version: string): string {
  return `${SCHEMA_DIR}admin_${version}.json.gz`;
}

const built = new Map<string, GraphQLSchema>();

/** The schema of one version, built once per process (about a second: it is the whole Admin API). */
export function shopifyAdminSchema(version: string = ADMIN_SCHEMA_VERSION): GraphQLSchema {
  const known = built.get(version);
  if (known) return known;
  const introspection = JSON.parse(gunzipSync(readFileSync(schemaFile(version))).toString('utf8')) as { data?: IntrospectionQuery } & Partial<IntrospectionQuery>;
  const schema = buildClientSchema(introspection.data ?? (introspection as IntrospectionQuery), { assumeValid: true });
  built.set(version, schema);
  return schema;
}
