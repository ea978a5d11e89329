#!/usr/bin/env node
// The compiled code (`npm run build` → dist/) when it is there and not older than the sources, as in the production
// image, where src/ is absent and tsx is not installed. Otherwise the TypeScript sources through tsx, so `npx
// print-bridge` works right after `npm ci` with no build step to forget, and a stale build never runs silently.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { URL } from 'node:url';

const dist = new URL('../dist/cli.js', import.meta.url);
const src = new URL('../src/', import.meta.url);

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = new URL(entry.isDirectory() ? `${entry.name}/` : entry.name, dir);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

const compiled = existsSync(dist) && (!existsSync(src) || statSync(dist).mtimeMs >= newestSource(src));
if (compiled) {
  const { main } = await import(dist.href);
  await main();
} else {
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import('../src/cli.ts');
  await main();
}
