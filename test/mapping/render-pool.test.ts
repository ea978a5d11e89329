import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { loadMappingText, type LoadedMapping } from '../../src/mapping/load.js';
import { mapOrder } from '../../src/mapping/map-order.js';
import { createRenderWorker, MappingRenderPool, RenderThreadError } from '../../src/mapping/render-pool.js';
import { parseJsonLossless } from '../../src/shopify/json.js';
import { testMapping } from '../helpers/harness.js';

/** The render pool (issue 22 item 2): the same answers as mapping on this thread, and a hard stop at the budget. */

const BODY = readFileSync(new URL('../fixtures/shopify/book-order.json', import.meta.url), 'utf8');
const load = (text: string, file: string): LoadedMapping => {
  const loaded = loadMappingText(text, file);
  if (!loaded.ok) throw new Error(loaded.problems.map((p) => p.message).join('; '));
  return loaded.mapping;
};
const DEFAULT = load(readFileSync(new URL('../../mappings/default.yaml', import.meta.url), 'utf8'), 'default.yaml');
const slowMapping = (chain: number) =>
  load(
    testMapping().replace(
      'destination: demo-printer',
      `destination: demo-printer\norder:\n  sourceOrderId: "{% assign x = order.note | split: ',' | ${Array.from({ length: chain }, () => 'sort_natural | reverse').join(' | ')} %}s-{{ x | size }}"`,
    ),
    `slow-${chain}.yaml`,
  );
const slowBody = () => JSON.stringify({ ...(JSON.parse(BODY) as object), note: Array.from({ length: 1000 }, (_, i) => `${'a'.repeat(1000)}${i}`).join(','), line_items: [{ ...(JSON.parse(BODY) as { line_items: object[] }).line_items[0], sku: 'PRINT-A5' }] });

let pool: MappingRenderPool | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

describe('the mapping render pool', () => {
  it('maps an order exactly as mapping on this thread does, with the exact gid of each line item', async () => {
    pool = new MappingRenderPool();
    const here = mapOrder(parseJsonLossless(BODY), DEFAULT, 'books.myshopify.com');
    const there = await pool.map({ shop: 'books.myshopify.com', mapping: DEFAULT, body: BODY });
    const { lineGids, ...result } = there;
    expect(result).toEqual(here);
    const body = JSON.parse(BODY) as { line_items: { admin_graphql_api_id: string }[] };
    expect([...lineGids.values()]).toEqual(body.line_items.map((l) => l.admin_graphql_api_id));
    // Many at once come back each to its caller.
    const many = await Promise.all(Array.from({ length: 50 }, (_, i) => pool!.map({ shop: `s${i % 5}.myshopify.com`, mapping: DEFAULT, body: BODY })));
    expect(many.every((r) => r.ok)).toBe(true);
  });

  it('stops a thread hard at the budget, says so on the order, and goes on with a new thread', async () => {
    // The first thread never answers (a template stuck inside one call, where no check of the engine's can run): only
    // the pool's stop ends it. The budget is long enough for a new thread's first order on a loaded machine.
    let started = 0;
    pool = new MappingRenderPool({
      threads: 1,
      budgetMs: 2_000,
      graceMs: 0,
      createWorker: (mb) =>
        ++started === 1
          ? new Worker("const { parentPort } = require('node:worker_threads'); parentPort.on('message', () => { for (;;) {} }); parentPort.postMessage({ ready: true });", { eval: true })
          : createRenderWorker(mb),
    });
    const stopped = await pool.map({ shop: 'stuck.myshopify.com', mapping: DEFAULT, body: BODY });
    expect(stopped.ok).toBe(false);
    expect(!stopped.ok && stopped.problems[0]!.message).toMatch(/took longer than the .* budget and was stopped/);
    expect(pool.stats().stopped).toBe(1);
    expect((await pool.map({ shop: 'next.myshopify.com', mapping: DEFAULT, body: BODY })).ok).toBe(true);
    expect(started).toBe(2);
  });

  it("stops a thread that runs out of its heap, with the reason, and goes on", async () => {
    // A budget the parse can never reach, however loaded the machine: only the heap cap can stop it.
    pool = new MappingRenderPool({ threads: 1, maxMemoryMb: 128, budgetMs: 120_000 });
    // About 29 MB of text (a webhook is at most 5 MB) that takes far more than 128 MB once parsed.
    const huge = JSON.stringify({ ...(JSON.parse(BODY) as object), note_attributes: Array.from({ length: 700_000 }, (_, i) => ({ name: `n${i}`, value: `value ${i}` })) });
    const outcome = await pool.map({ shop: 'huge.myshopify.com', mapping: DEFAULT, body: huge });
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.problems[0]!.message).toMatch(/more memory than a render thread may/);
    // A body that could not even be copied into a thread's heap is refused before it is sent.
    const tooLarge = await pool.map({ shop: 'huge.myshopify.com', mapping: DEFAULT, body: ' '.repeat(40 * 1024 * 1024) });
    expect(!tooLarge.ok && tooLarge.problems[0]!.message).toMatch(/too large to map/);
    expect((await pool.map({ shop: 'next.myshopify.com', mapping: DEFAULT, body: BODY })).ok).toBe(true);
  });

  it('a thread that cannot start is not the order’s fault: the job is retried, and threads are not started over and over', async () => {
    let started = 0;
    const failures: string[] = [];
    pool = new MappingRenderPool({
      threads: 2,
      onEvent: (e) => failures.push(e.detail),
      createWorker: () => {
        started += 1;
        return new Worker('throw new Error("broken build")', { eval: true });
      },
    });
    const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => pool!.map({ shop: 'any.myshopify.com', mapping: DEFAULT, body: BODY })));
    expect(outcomes.every((o) => o.status === 'rejected' && o.reason instanceof RenderThreadError && o.reason.retryable)).toBe(true);
    expect(failures.length).toBeGreaterThanOrEqual(3);
    // After three failures in a row (two threads were starting at once) the pool waits before starting another.
    expect(started).toBeLessThanOrEqual(4);
    const before = started;
    await expect(pool.map({ shop: 'any.myshopify.com', mapping: DEFAULT, body: BODY })).rejects.toBeInstanceOf(RenderThreadError);
    expect(started).toBe(before);
  });

  it('starts nothing after it is closed, even for an answer already on its way', async () => {
    let started = 0;
    pool = new MappingRenderPool({ threads: 1, createWorker: (mb) => (started++, createRenderWorker(mb)) });
    const pending = pool.map({ shop: 'a.myshopify.com', mapping: DEFAULT, body: BODY }).catch((error: Error) => error);
    await pool.close();
    expect(await pending).toBeInstanceOf(Error);
    expect(String(await pending)).toMatch(/closed/);
    expect(started).toBe(1);
  });

  it('lets another store through while one store’s slow orders fill the threads', async () => {
    pool = new MappingRenderPool({ threads: 2 });
    const slow = slowMapping(3000);
    await Promise.all([pool.map({ shop: 'warm.myshopify.com', mapping: DEFAULT, body: BODY }), pool.map({ shop: 'warm.myshopify.com', mapping: DEFAULT, body: BODY })]);
    const done: string[] = [];
    const slowOnes = Array.from({ length: 4 }, (_, i) => pool!.map({ shop: 'slow.myshopify.com', mapping: slow, body: slowBody() }).then((r) => (done.push(`slow-${i}`), r)));
    const fast = pool.map({ shop: 'fast.myshopify.com', mapping: DEFAULT, body: BODY }).then((r) => (done.push('fast'), r));
    expect((await fast).ok).toBe(true);
    const slowResults = await Promise.all(slowOnes);
    expect(slowResults.every((r) => !r.ok)).toBe(true);
    // The other store waited for at most one of the slow store's orders, never behind all four.
    expect(done.indexOf('fast')).toBeLessThanOrEqual(2);
  }, 30_000);

  it("holds a slow store to its share of the machine's cores: with its renders pinned at the budget, another store's render starts without waiting for them", async () => {
    // Render threads that spin on the slow store's orders until the pool stops them (pinned at the budget), and answer
    // any other store's at once. Each order given to a thread is recorded, in the order the pool gives them.
    const given: string[] = [];
    let answered = () => undefined as void;
    const fastAnswered = new Promise<void>((resolve) => (answered = resolve));
    const spinning = `const { parentPort } = require('node:worker_threads');
      parentPort.on('message', (task) => {
        if (task.shop === 'slow.myshopify.com') for (;;) {}
        parentPort.postMessage({ id: task.id, result: { ok: true, order: {}, lines: [], ignored: [], skipped: [], lineGids: [] } });
      });
      parentPort.postMessage({ ready: true });`;
    // More threads than the two cores: the thread count alone let the slow store take all three, and every core.
    pool = new MappingRenderPool({
      threads: 3,
      cores: 2,
      budgetMs: 3_000,
      graceMs: 0,
      createWorker: () => {
        const worker = new Worker(spinning, { eval: true });
        const post = worker.postMessage.bind(worker);
        worker.postMessage = (task: { shop: string }) => (given.push(task.shop), post(task));
        return worker;
      },
    });
    const slow = Array.from({ length: 3 }, () => pool!.map({ shop: 'slow.myshopify.com', mapping: DEFAULT, body: BODY }).catch((error: Error) => error));
    const fast = pool.map({ shop: 'fast.myshopify.com', mapping: DEFAULT, body: BODY }).then((r) => (answered(), r));
    await fastAnswered;
    expect((await fast).ok).toBe(true);
    // The slow store had one thread (one less than the cores), the other store's order went to a free one at once:
    // none of the slow renders had been stopped at its budget when it was answered.
    expect(given).toEqual(['slow.myshopify.com', 'fast.myshopify.com']);
    expect(pool.stats()).toMatchObject({ running: 1, queued: 2, stopped: 0 });
    await pool.close();
    expect((await Promise.all(slow)).every((r) => r instanceof Error)).toBe(true);
  });
});
