import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AofRedis } from '../../scripts/chaos-support.js';
import { type Harness, orderBody, SHOP, startHarness, waitFor } from '../helpers/harness.js';

/**
 * The short version of `npm run chaos`'s Redis case: Redis (with an append-only file, as docs/operations.md asks) is
 * restarted in the middle of a burst. Webhooks answered during the outage get 503 and are sent again, as Shopify
 * does; everything acknowledged survives the restart; every order reaches the printer exactly once.
 */
describe('a Redis restart in the middle of a burst', () => {
  let redis: AofRedis;
  let h: Harness;
  beforeAll(async () => {
    redis = await AofRedis.start();
    h = await startHarness({ env: { REDIS_URL: redis.url } });
  });
  afterAll(async () => {
    await h?.close();
    await redis?.stop();
  });

  it('loses no order and sends none twice', async () => {
    const bodies = Array.from({ length: 40 }, () => orderBody([{ sku: 'PRINT-A5' }]));
    for (const body of bodies) h.standIn.seedOrder(SHOP, body);
    let refused = 0;
    let accepted = 0;
    let restart: Promise<void> | undefined;
    // Once the restart is asked for, no lane sends until Redis is down: otherwise every remaining send could be
    // accepted before the server exits, and the outage would test nothing.
    let markDown = (): void => undefined;
    const down = new Promise<void>((resolve) => (markDown = resolve));
    await Promise.all(
      Array.from({ length: 5 }, async (_, lane) => {
        for (let i = lane; i < bodies.length; i += 5) {
          if (restart) await down;
          for (;;) {
            const answer = await h.sendWebhook('orders/paid', bodies[i]!).catch(() => undefined);
            if (answer?.status === 200) break;
            expect([undefined, 503]).toContain(answer?.status);
            refused += 1;
            await sleep(100);
          }
          accepted += 1;
          if (accepted === 12) restart = redis.restart(800, 'SIGTERM', markDown);
        }
      }),
    );
    await restart;
    expect(refused).toBeGreaterThan(0);

    await waitFor(async () => {
      const links = await Promise.all(bodies.map((b) => h.runtime.store.get(SHOP, b.admin_graphql_api_id).catch(() => undefined)));
      return links.every((l) => l?.status === 'submitted');
      // Jobs refused during the outage back off (5 s, 10 s, 20 s, ...): on a loaded machine the last ones take a while.
    }, { timeoutMs: 150_000, intervalMs: 200, what: 'every order submitted after the restart' });
    const counts = new Map<string, number>();
    for (const o of h.emulator.store.all()) counts.set(o.sourceOrderId ?? '', (counts.get(o.sourceOrderId ?? '') ?? 0) + 1);
    expect(counts.size).toBe(40);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
  }, 200_000);
});
