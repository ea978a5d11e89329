import { describeExpected, paint, summaryTable, type Style, type SummaryEntry } from './render.js';
import type { DemoScenario } from './scenarios.js';
import type { DemoStack } from './stack.js';
import type { Observation } from './verify.js';

/** The end of a run: the summary table with each order's evidence, or the result as JSON, and where to look when it stays running. */

/** The summary of a finished run, a line at a time. */
export function saySummary(say: (line?: string) => void, style: Style, entries: SummaryEntry[], logFile: string): void {
  const failed = entries.filter((e) => !e.ok);
  say();
  say(paint(style, 'bold', 'Demo summary'));
  for (const line of summaryTable(entries, style)) say(`  ${line}`);
  say();
  for (const e of entries) for (const line of e.evidence) say(`  ${e.orderName}  ${line}`);
  say();
  if (failed.length === 0) {
    say(paint(style, 'green', `All ${entries.length} orders reached their expected end state.`));
  } else {
    say(paint(style, 'red', `${failed.length} of ${entries.length} orders did not reach their expected end state:`));
    for (const e of failed) for (const reason of e.reasons) say(`  ${e.orderName} ${e.scenario}: ${reason}`);
    say(`  (the app's log: ${logFile})`);
  }
}

/** Where everything is, for a run left running (`keepRunning`). */
export function sayStillRunning(say: (line?: string) => void, style: Style, stack: DemoStack): void {
  say();
  say(paint(style, 'bold', 'Still running; Ctrl-C stops everything.'));
  say(`  app               ${stack.appUrl}`);
  say(`  embedded app      ${stack.preview.url}  (the app as a merchant of ${stack.shop} sees it in the Shopify admin)`);
  say(`  admin pages       ${stack.appUrl}/admin  (operator console; log in with ADMIN_TOKEN ${stack.config.ADMIN_TOKEN})`);
  say(`  metrics           curl -H 'authorization: Bearer ${stack.config.METRICS_TOKEN}' ${stack.appUrl}/metrics`);
  say(`  print service     ${stack.emulator.baseUrl}  (hooks: ${stack.emulator.hooksUrl}; token ${stack.config.PRINT_API_TOKEN}, secret ${stack.config.PRINT_API_SECRET})`);
  say(`  Shopify stand-in  ${stack.standIn.origin}/_stand-in/shops/${stack.shop}/orders`);
  say(`  service mode      ${stack.standIn.origin}/_stand-in/shops/${stack.service.shop}/orders  (fulfillment orders at print-bridge's location and the merchant's)`);
  say(`  mappings          ${stack.mappingsDir}`);
  say(`  logs              ${stack.logFile}`);
}

/** Lines that show, from the systems themselves, what each scenario was about. */
export function evidenceOf(scenario: DemoScenario, seen: Observation): string[] {
  const lines: string[] = [];
  const { expected } = scenario;
  if (expected.artworkPath && seen.printer.componentPaths.includes(expected.artworkPath)) {
    lines.push(`artwork from the line item property, at the printer: ${expected.artworkPath}`);
  }
  if (expected.shipTo && seen.printer.shipments.length > 0) {
    const to = seen.printer.shipments.map((s) => `${s.shipTo.address1}, ${s.shipTo.town} ${s.shipTo.postcode}`);
    lines.push(`the printer shipped to the new address: ${[...new Set(to)].join('; ')}`);
  }
  if (expected.status === 'held' && seen.app.problems.length > 0) {
    lines.push(`held, tagged ${seen.shopify.tags.filter((tag) => tag.startsWith('print-bridge:')).join(', ')}: ${seen.app.problems.join('; ')}`);
  }
  if (expected.appHoldNotes && seen.shopify.appHolds.length > 0) {
    lines.push(`its fulfillment order in Shopify carries print-bridge's hold: "${seen.shopify.appHolds[0]}"`);
  }
  if (expected.printer === 'nothing' && seen.printer.orders === 0 && expected.status === 'cancelled') {
    lines.push('cancelled before the hold window ended: the print service never received it');
  }
  if (expected.printer === 'cancelled' && seen.printer.status === 'cancelled') {
    lines.push(`cancelled at the print service (${seen.printer.id}) before it shipped`);
  }
  if (expected.waitedFor === 'shopify-hold' && (seen.app.waits ?? []).includes('shopify-hold') && seen.printer.orders === 1 && seen.shopify.fulfillments.length === 1) {
    lines.push(`nothing was printed while Shopify held the order for a fraud review; sent once when the merchant released it, then fulfilled: ${seen.shopify.fulfillments[0]!.name}`);
  } else if (expected.waitedFor === 'test-mode' && (seen.app.waits ?? []).includes('test-mode') && seen.printer.orders === 1) {
    lines.push(`set up in the app with its own print account: checked in test mode (nothing created), then sent once when the merchant went live, on its own account (${seen.printer.account ?? '?'})`);
  } else if (expected.waitedFor && (seen.app.waits ?? []).includes(expected.waitedFor) && seen.printer.orders === 1) {
    lines.push(`waited (${expected.waitedFor.replace(/-/g, ' ')}), then went out by itself once a mapping served its store: one print order`);
  }
  if (expected.service) {
    const fos = seen.shopify.fulfillmentOrders ?? [];
    const fulfilmentLines = (at: 'print-bridge' | 'merchant') => fos.filter((fo) => fo.at === at).flatMap((fo) => fo.lines.map((l) => `${l.sku}×${l.quantity}`));
    const merchantOpen = fos.some((fo) => fo.at === 'merchant') && fos.filter((fo) => fo.at === 'merchant').every((fo) => fo.status === 'OPEN');
    if (fos.some((fo) => fo.at === 'print-bridge' && fo.status === 'CLOSED' && fo.answers.includes('FULFILLMENT_ACCEPTED')) && merchantOpen) {
      lines.push(
        `fulfillment-service mode (${scenario.shop}): Shopify requested ${fulfilmentLines('print-bridge').join(', ')} of print-bridge; accepted, printed (${(seen.printer.items ?? []).join(', ')}) and fulfilled with the printer's tracking; the merchant's own fulfillment order (${fulfilmentLines('merchant').join(', ')}) is still open for them to ship`,
      );
    }
  }
  if (expected.fulfillments > 1 && seen.shopify.fulfillments.length === expected.fulfillments) {
    lines.push(`${seen.shopify.fulfillments.length} print shipments, ${seen.shopify.fulfillments.length} fulfillments with their own tracking`);
  }
  return lines;
}

export function jsonResult(entries: SummaryEntry[]) {
  return {
    ok: entries.every((e) => e.ok),
    orders: entries.map((e) => ({
      order: e.orderName,
      scenario: e.scenario,
      expected: describeExpected(e.expected),
      ok: e.ok,
      appStatus: e.seen.app.status ?? null,
      printerStatus: e.seen.printer.status ?? null,
      printOrderId: e.seen.printer.id ?? null,
      tags: e.seen.shopify.tags,
      fulfillments: e.seen.shopify.fulfillments,
      problems: e.seen.app.problems,
      reasons: e.reasons,
    })),
  };
}
