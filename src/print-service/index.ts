export * from './errors.js';
export * from './schema.js';
export * from './signing.js';
export * from './client.js';
export * from './retry-policy.js';
export * from './submit.js';
