import { readdirSync, readFileSync } from 'node:fs';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { FLOW_ACTIONS, FLOW_LIFECYCLE_PATH, FLOW_TRIGGER_HANDLES, flowActionPath, TRIGGER_FIELDS } from '../../src/flow/definitions.js';

/**
 * The Flow extensions as the Shopify CLI reads them (`extensions/<handle>/shopify.extension.toml`), held against the
 * app's code: the trigger handles and field keys it sends, and the routes its actions and lifecycle callback are served at.
 */
const root = new URL('../../extensions/', import.meta.url);
const appUrl = (parse(readFileSync(new URL('../../shopify.app.toml', import.meta.url), 'utf8')) as { application_url: string }).application_url;

interface Field {
  type: string;
  key?: string;
  required?: boolean;
  name?: string;
  description?: string;
}
interface Extension {
  name: string;
  type: string;
  handle: string;
  description?: string;
  runtime_url?: string;
  url?: string;
}
type Toml = { extensions: Extension[]; settings?: { fields?: Field[] } };

const extensions = readdirSync(root, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => ({ dir: d.name, toml: parse(readFileSync(new URL(`${d.name}/shopify.extension.toml`, root), 'utf8')) as unknown as Toml }))
  .filter(({ toml }) => toml.extensions.some((e) => e.type.startsWith('flow_')));
const ofType = (type: string) => extensions.filter(({ toml }) => toml.extensions[0]!.type === type);
// Shopify Flow's field types for triggers and actions (besides references), as the Shopify CLI checks them.
const TRIGGER_TYPES = new Set(['boolean', 'email', 'single_line_text_field', 'url', 'number_decimal', 'order_reference']);
const ACTION_TYPES = new Set(['boolean', 'email', 'multi_line_text_field', 'number_integer', 'single_line_text_field', 'url', 'number_decimal', 'order_reference']);

describe('the Flow extensions', () => {
  it('has one folder per extension, named by its handle, each handle unique and within the CLI’s rules', () => {
    for (const { dir, toml } of extensions) {
      expect(toml.extensions).toHaveLength(1);
      const extension = toml.extensions[0]!;
      expect(extension.handle).toBe(dir);
      expect(extension.handle).toMatch(/^[a-z0-9-]{1,30}$/);
      expect(extension.name.length).toBeGreaterThan(0);
    }
    expect(new Set(extensions.map((e) => e.dir)).size).toBe(extensions.length);
  });

  it('declares exactly the triggers the app sends, each with an order reference and the field keys its payloads use', () => {
    const triggers = ofType('flow_trigger');
    expect(triggers.map((t) => t.toml.extensions[0]!.handle).sort()).toEqual([...FLOW_TRIGGER_HANDLES].sort());
    const keys = new Set<string>(Object.values(TRIGGER_FIELDS));
    for (const { toml } of triggers) {
      const fields = toml.settings?.fields ?? [];
      expect(fields.filter((f) => f.type === 'order_reference')).toHaveLength(1);
      for (const field of fields) {
        expect(TRIGGER_TYPES.has(field.type), field.type).toBe(true);
        if (field.type.endsWith('_reference')) {
          expect(field.key).toBeUndefined();
          continue;
        }
        // Flow allows letters and spaces only in a trigger field's key.
        expect(field.key).toMatch(/^[a-zA-Z\s]+$/);
        expect(keys.has(field.key!), field.key).toBe(true);
      }
    }
    const fieldsOf = (handle: string) => (triggers.find((t) => t.dir === handle)!.toml.settings?.fields ?? []).map((f) => `${f.key ?? ''}:${f.type}`);
    expect(fieldsOf('print-order-sent')).toEqual([':order_reference']);
    expect(fieldsOf('print-status-changed')).toEqual([':order_reference', 'status:single_line_text_field', 'carrier:single_line_text_field', 'tracking number:single_line_text_field', 'tracking url:url']);
    expect(fieldsOf('print-order-needs-attention')).toEqual([':order_reference', 'kind:single_line_text_field', 'reason:single_line_text_field']);
  });

  it('declares the four actions, each posting to its route on the app’s URL with a required order reference', () => {
    const actions = ofType('flow_action');
    expect(actions.map((a) => a.dir).sort()).toEqual([...FLOW_ACTIONS].sort());
    for (const { toml } of actions) {
      const extension = toml.extensions[0]!;
      const url = new URL(extension.runtime_url!);
      expect(url.protocol).toBe('https:');
      expect(url.origin).toBe(new URL(appUrl).origin);
      expect(url.pathname).toBe(flowActionPath(extension.handle as (typeof FLOW_ACTIONS)[number]));
      const fields = toml.settings?.fields ?? [];
      expect(fields).toEqual([{ type: 'order_reference', required: true }]);
      for (const field of fields) expect(ACTION_TYPES.has(field.type)).toBe(true);
    }
  });

  it('has a lifecycle callback on the app’s /flow/lifecycle', () => {
    const callbacks = ofType('flow_trigger_lifecycle_callback');
    expect(callbacks).toHaveLength(1);
    expect(new URL(callbacks[0]!.toml.extensions[0]!.url!).href).toBe(new URL(FLOW_LIFECYCLE_PATH, appUrl).href);
  });
});
