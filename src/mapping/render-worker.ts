import { parentPort } from 'node:worker_threads';
import { runTask, type RenderTask } from './render-task.js';

/**
 * A render thread of the mapping render pool (render-pool.ts): maps one order at a time with a store's mapping. The
 * pool stops the thread hard at the order's budget, so a merchant's template never holds the process's event loop
 * (webhook intake, other stores' orders, the liveness check).
 */
parentPort?.on('message', (task: RenderTask) => {
  try {
    parentPort!.postMessage({ id: task.id, result: runTask(task) });
  } catch (error) {
    parentPort!.postMessage({ id: task.id, error: (error as Error).message ?? String(error) });
  }
});

// Loaded: the pool starts counting the first order's budget without the start-up allowance.
parentPort?.postMessage({ ready: true });
