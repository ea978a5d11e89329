// A worker thread that runs a module of the TypeScript sources (tests, `npx print-bridge` without a build): registers
// tsx in the thread, as bin/print-bridge.js does in the main thread, then loads the module named in workerData. The
// compiled code (dist/) starts its threads from their .js files and never comes here.
import { workerData } from 'node:worker_threads';

const { register } = await import('tsx/esm/api');
register();
await import(workerData.entry);
