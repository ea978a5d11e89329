export * from './errors.js';
export * from './schema.js';
export * from './signing.js';
