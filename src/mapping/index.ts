export * from './errors.js';
export * from './load.js';
export * from './map-order.js';
export * from './match.js';
export * from './registry.js';
export * from './shopify-order.js';
export { registerMappingCommands } from './cli.js';
export { compileTemplate, renderTemplate, liquid, type Tmpl } from './templates.js';
export { mappingFileSchema, type MappingFile } from './schema.js';
