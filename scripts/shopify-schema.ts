/**
 * shopify:schema: takes Shopify's own Admin GraphQL schema for one API version from the npm package
 * `@shopify/dev-mcp` (ISC; it ships the introspection of every supported version) and commits it, gzipped as shipped,
 * beside the Admin stand-in, which builds its GraphQL schema from it: a document Shopify would refuse fails our tests.
 *
 *   npm run shopify:schema -- 2026-10 [--package 1.16.0]
 *
 * Nothing is installed: the package is fetched with `npm pack` into a temporary folder and only the one file is read.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { buildClientSchema, type IntrospectionQuery } from 'graphql';
import { SCHEMA_DIR, schemaFile } from '../src/dev/admin-stand-in/admin-schema.js';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { package: { type: 'string', default: 'latest' } } });
const version = positionals[0];
if (!version || !/^(\d{4}-(01|04|07|10)|unstable)$/.test(version)) {
  console.error('usage: npm run shopify:schema -- VERSION (e.g. 2026-10) [--package DEV_MCP_VERSION]');
  process.exit(2);
}

const work = mkdtempSync(join(tmpdir(), 'pb-shopify-schema-'));
try {
  const packed = execFileSync('npm', ['pack', `@shopify/dev-mcp@${values.package}`, '--silent', '--pack-destination', work], { encoding: 'utf8' }).trim().split('\n').at(-1)!;
  const member = `package/dist/data/admin_${version}.json.gz`;
  execFileSync('tar', ['-xzf', join(work, packed), '-C', work, member, 'package/package.json']);
  const gz = readFileSync(join(work, member));
  const pkg = JSON.parse(readFileSync(join(work, 'package/package.json'), 'utf8')) as { version: string; license?: string };
  // Refuse anything graphql-js cannot build a schema from, before it replaces the committed one.
  const introspection = JSON.parse(gunzipSync(gz).toString('utf8')) as { data?: IntrospectionQuery } & Partial<IntrospectionQuery>;
  const schema = buildClientSchema(introspection.data ?? (introspection as IntrospectionQuery));
  const types = Object.keys(schema.getTypeMap()).length;
  writeFileSync(schemaFile(version), gz);
  const meta = { version, source: `@shopify/dev-mcp@${pkg.version}`, license: pkg.license ?? 'ISC', file: member.replace('package/', ''), sha256: createHash('sha256').update(gz).digest('hex'), types };
  writeFileSync(join(SCHEMA_DIR, `admin_${version}.source.json`), `${JSON.stringify(meta, null, 2)}\n`);
  console.log(`Shopify Admin API ${version}: ${types} types from ${meta.source} (${meta.license}) → ${schemaFile(version)}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
