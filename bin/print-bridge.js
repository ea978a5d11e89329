#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx so that `npx print-bridge` works right after `npm ci`,
// with no build step to forget.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli.ts');
await main();
