import { type ChildProcess, spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BIN } from '../helpers/run-cli.js';
import { type Harness, orderBody, SHOP, startHarness, waitFor, waitForIdle } from '../helpers/harness.js';

/** Every sourceOrderId the emulator holds, with how many creates it stored for each. */
function creates(h: Harness): Map<string, number> {
  const counts = new Map<string, number>();
  for (const o of h.emulator.store.all()) counts.set(o.sourceOrderId ?? '', (counts.get(o.sourceOrderId ?? '') ?? 0) + 1);
  return counts;
}

async function sendBurst(h: Harness, bodies: ReturnType<typeof orderBody>[], parallel = 20): Promise<void> {
  for (let i = 0; i < bodies.length; i += parallel) {
    const answers = await Promise.all(bodies.slice(i, i + parallel).map((b) => h.sendWebhook('orders/paid', b)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
  }
}

function startWorkerProcess(h: Harness): ChildProcess {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '' };
  for (const [key, value] of Object.entries(h.config)) {
    if (value === undefined) continue;
    env[key] = Array.isArray(value) ? value.join(',') : String(value);
  }
  env.JOB_LOCK_MS = '2000';
  env.LOG_LEVEL = 'silent';
  // The harness's artwork host is made up and this machine has no DNS (the harness's own app has a stand-in lookup).
  env.ARTWORK_RESOLVE = 'false';
  return spawn(process.execPath, [BIN, 'worker'], { env, stdio: 'ignore' });
}

// The two tests run at once: each has its own harness (Redis prefix, schema, emulator, stand-in), and each spends most
// of its time waiting on the app's own clocks (the killed worker's 15-second submission leases, the retry backoff).
// The Admin API's routing to a stand-in is process-wide (src/shopify/admin/routing.ts), so only one of them may call
// Shopify from this process: the SIGKILL test's app here is web only (it makes no Admin API call; its worker is a
// process of its own), and the other test's app sets its shop's route to its own stand-in before each call.
describe.concurrent('pipeline under faults', () => {
  /** A harness for one test, closed (with any worker process it started) when the test ends. */
  async function harnessFor(onTestFinished: (fn: () => Promise<void>) => void, options: Parameters<typeof startHarness>[0]): Promise<{ h: Harness; children: ChildProcess[] }> {
    const h = await startHarness(options);
    const children: ChildProcess[] = [];
    onTestFinished(async () => {
      for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await h.close();
    });
    return { h, children };
  }

  it('delivers a 200-order burst exactly once when the worker is killed with SIGKILL midway and restarted', async ({ expect, onTestFinished }) => {
    const { h, children } = await harnessFor(onTestFinished, { roles: { web: true, worker: false } });
    const bodies = Array.from({ length: 200 }, () => orderBody([{ sku: 'PRINT-A5' }]));
    for (const body of bodies) h.standIn.seedOrder(SHOP, body);
    const expected = bodies.map((b) => `${SHOP.replace('.myshopify.com', '')}-${b.order_number}`);

    const first = startWorkerProcess(h);
    children.push(first);
    const burst = sendBurst(h, bodies);
    await waitFor(() => creates(h).size >= 40, { timeoutMs: 30_000, what: 'the first orders at the printer' });
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    // The kill landed midway: the dead worker held jobs (still active, their locks not yet expired; no other worker
    // runs), and orders are left that no worker has sent.
    const inHand = (await Promise.all([h.runtime.queues.webhooks.getActiveCount(), h.runtime.queues.orders.getActiveCount()])).reduce((a, b) => a + b);
    expect(inHand).toBeGreaterThan(0);
    await burst;
    const atKill = creates(h).size;
    expect(atKill).toBeLessThan(200);

    const second = startWorkerProcess(h);
    children.push(second);
    await waitFor(() => creates(h).size === 200, { timeoutMs: 60_000, what: 'all 200 orders at the printer' });
    // Every job is done, the killed worker's stalled ones too (they stay active until the second worker takes them
    // again): a duplicate create from one of them would be at the printer now.
    await waitForIdle(h, { timeoutMs: 60_000, queues: ['webhooks', 'orders'], what: 'every job that can send an order done, the stalled ones included' });
    const counts = creates(h);
    expect([...counts.keys()].sort()).toEqual([...expected].sort());
    expect([...counts.values()].filter((n) => n > 1)).toEqual([]);
  }, 120_000);

  it('submits every order exactly once with 30% 503s and 10% dropped answers at the printer', async ({ expect, onTestFinished }) => {
    const { h } = await harnessFor(onTestFinished, { emulator: { failRate: 0.3, dropRate: 0.1, seed: 7 } });
    const bodies = Array.from({ length: 60 }, () => orderBody([{ sku: 'PRINT-A5' }]));
    for (const body of bodies) h.standIn.seedOrder(SHOP, body);
    await sendBurst(h, bodies);
    await waitFor(() => creates(h).size === 60, { timeoutMs: 60_000, what: 'all 60 orders at the printer' });
    await waitFor(async () => {
      const links = await Promise.all(bodies.map((b) => h.runtime.store.get(SHOP, b.admin_graphql_api_id)));
      return links.every((l) => l?.status === 'submitted');
    }, { timeoutMs: 60_000, what: 'every link submitted' });
    expect([...creates(h).values()].filter((n) => n > 1)).toEqual([]);
    // The dropped answers really happened: those orders were found by source id instead of being created again.
    const histories = await Promise.all(bodies.map((b) => h.runtime.store.history(SHOP, b.admin_graphql_api_id)));
    const reconciled = histories.filter((entries) => entries.some((e) => e.detail?.includes('nothing new was created')));
    expect(reconciled.length).toBeGreaterThan(0);
  }, 120_000);
});
