import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { StoreMappingSync } from './mapping-sync.js';

const SHOP = 'sync.myshopify.com';

function version(sku: string): string {
  return `shops: ["*"]
destination: demo-printer
shipments:
  carrier: { alias: standard }
  returnAddress: { name: "Returns", address1: "1 Mill Lane", town: "Leeds", postcode: "LS1 1AA", isoCountry: GB }
products:
  - match: { sku: "*" }
    sku: "${sku}"
    components:
      - code: cover
        path: "https://files.example.com/a.pdf"
unmapped: hold
`;
}

/** Settings whose pointer reads can be held open, so a save can land while a poll's read is under way. */
function fakeSettings() {
  const pointers = new Map<string, number>();
  const gates: (() => void)[] = [];
  let holdReads = false;
  let heldGate: Promise<void> | undefined;
  return {
    pointers,
    holdNextRead(): { started: Promise<void>; release: () => void } {
      holdReads = true;
      let started!: () => void;
      const startedP = new Promise<void>((resolve) => (started = resolve));
      gates.push(started);
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      heldGate = gate;
      return { started: startedP, release };
    },
    settings: {
      async mappingPointers() {
        const snapshot = new Map(pointers);
        if (holdReads) {
          holdReads = false;
          gates.shift()?.();
          await heldGate;
        }
        return snapshot;
      },
      async mappingVersion(shop: string, v: number) {
        return { shop, version: v, yaml: version(`V${v}`), author: 'operator', createdAt: new Date(0).toISOString() };
      },
    },
  };
}

function registry() {
  const served = new Map<string, number>();
  return {
    served,
    storeVersions: () => new Map(served),
    setStoreMapping: (shop: string, current: { version: number } | undefined) => {
      if (current) served.set(shop, current.version);
      else served.delete(shop);
    },
  };
}

describe('StoreMappingSync', () => {
  it('serves a version saved while a poll that read the pointers before the save is under way', async () => {
    const fake = fakeSettings();
    const reg = registry();
    const sync = new StoreMappingSync({ settings: fake.settings, registry: reg, logger: pino({ level: 'silent' }), pollMs: 0 });
    fake.pointers.set(SHOP, 2);
    await sync.refresh();
    expect(reg.served.get(SHOP)).toBe(2);

    // A poll reads the pointers (version 2) and is held; the rollback to 1 lands and asks for a refresh.
    const held = fake.holdNextRead();
    const poll = sync.refresh();
    await held.started;
    fake.pointers.set(SHOP, 1);
    const afterRollback = sync.refresh();
    held.release();
    await poll;
    await afterRollback;
    expect(reg.served.get(SHOP)).toBe(1);
  });

  it('keeps polling when the first read at start fails, and serves the version once the database answers', async () => {
    const fake = fakeSettings();
    fake.pointers.set(SHOP, 3);
    let failures = 1;
    const flaky = { ...fake.settings, mappingPointers: () => (failures-- > 0 ? Promise.reject(new Error('database not up yet')) : fake.settings.mappingPointers()) };
    let served!: () => void;
    const servedP = new Promise<void>((resolve) => (served = resolve));
    const reg = registry();
    const watched = { ...reg, setStoreMapping: (shop: string, current: { version: number } | undefined) => (reg.setStoreMapping(shop, current), served()) };
    const sync = new StoreMappingSync({ settings: flaky, registry: watched, logger: pino({ level: 'silent' }), pollMs: 5 });
    await expect(sync.start()).rejects.toThrow('database not up yet');
    await servedP;
    sync.close();
    expect(reg.served.get(SHOP)).toBe(3);
  });

  it('runs one follow-up for every call made while a run is under way', async () => {
    const fake = fakeSettings();
    const reg = registry();
    let reads = 0;
    const counting = { ...fake.settings, mappingPointers: () => ((reads += 1), fake.settings.mappingPointers()) };
    const sync = new StoreMappingSync({ settings: counting, registry: reg, logger: pino({ level: 'silent' }), pollMs: 0 });
    const held = fake.holdNextRead();
    const first = sync.refresh();
    await held.started;
    const followers = [sync.refresh(), sync.refresh(), sync.refresh()];
    expect(new Set(followers).size).toBe(1);
    held.release();
    await Promise.all([first, ...followers]);
    expect(reads).toBe(2);
  });
});
