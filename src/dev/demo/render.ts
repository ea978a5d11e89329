import type { OrderStatus } from '../../orders/status.js';
import type { Expectation } from './scenarios.js';
import type { Observation } from './verify.js';

/**
 * The demo's output: a live table of the orders' progress (redrawn in place on a terminal, a line per change
 * otherwise) and the final summary. Pure functions from state to text, so tests can read what a user sees.
 */

export interface DemoOutput {
  write(text: string): unknown;
  /** A terminal: the live table is redrawn in place. */
  isTTY?: boolean;
  /** The terminal's width: live lines are cut to it, since a wrapped line would throw the redrawing off. */
  columns?: number;
}

export const STAGES = ['received', 'submitted', 'print ready', 'shipped'] as const;
export type Stage = (typeof STAGES)[number];

/** The furthest stage of the main line an app status stands for; side exits (held, cancelled, error) add none. */
export function stageOf(status: OrderStatus | undefined): Stage | undefined {
  switch (status) {
    case undefined:
      return undefined;
    case 'pending':
    case 'held':
      return 'received';
    case 'submitting':
    case 'submitted':
    case 'received':
      return 'submitted';
    case 'print-ready':
    case 'partially-shipped':
      return 'print ready';
    case 'shipped':
      return 'shipped';
    case 'error':
    case 'cancelled':
      return undefined;
  }
}

export interface ProgressRow {
  orderName: string;
  scenario: string;
  /** Furthest stage seen so far (kept when the order later leaves the main line, e.g. cancelled after submission). */
  furthest?: Stage;
  /** The app's status, or what the demo is doing with the order. */
  status: string;
  state: 'running' | 'met' | 'failed';
}

export interface Style {
  color: boolean;
}

const ANSI = { reset: '\x1b[0m', bold: '\x1b[1m', dim: '\x1b[2m', red: '\x1b[31m', green: '\x1b[32m', yellow: '\x1b[33m', cyan: '\x1b[36m' };
type Tone = Exclude<keyof typeof ANSI, 'reset'>;
export function paint(style: Style, tone: Tone, text: string): string {
  return style.color ? `${ANSI[tone]}${text}${ANSI.reset}` : text;
}

// Built from a string: a control character in a regular expression literal reads as a mistake.
const ANSI_SEQUENCE = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

/** Display width: East Asian wide characters take two columns; ANSI sequences none. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const char of text.replace(ANSI_SEQUENCE, '')) {
    const code = char.codePointAt(0) ?? 0;
    width += (code >= 0x1100 && code <= 0x115f) || (code >= 0x2e80 && code <= 0xa4cf) || (code >= 0xac00 && code <= 0xd7a3) || (code >= 0xf900 && code <= 0xfaff) || (code >= 0xff00 && code <= 0xff60) || (code >= 0xffe0 && code <= 0xffe6) ? 2 : 1;
  }
  return width;
}

/** Cuts a line to `width` columns; a cut line loses its colours (cutting inside an ANSI sequence would garble it). */
export function fitTo(line: string, width: number): string {
  if (displayWidth(line) <= width) return line;
  let out = '';
  for (const char of line.replace(ANSI_SEQUENCE, '')) {
    if (displayWidth(out + char) > width - 1) break;
    out += char;
  }
  return `${out}…`;
}

const pad = (text: string, width: number) => text + ' '.repeat(Math.max(0, width - displayWidth(text)));

/** A plain table: a header, a rule, the rows; each cell may hold several lines. */
export function table(headers: string[], rows: string[][][], style: Style): string[] {
  const widths = headers.map((h, i) => Math.max(displayWidth(h), ...rows.map((r) => Math.max(0, ...(r[i] ?? ['']).map(displayWidth)))));
  const line = (cells: string[]) => cells.map((c, i) => pad(c, widths[i] ?? 0)).join('  ').trimEnd();
  const out = [paint(style, 'bold', line(headers)), paint(style, 'dim', widths.map((w) => '─'.repeat(w)).join('  '))];
  for (const row of rows) {
    const height = Math.max(1, ...row.map((cell) => cell.length));
    for (let k = 0; k < height; k++) out.push(line(row.map((cell) => cell[k] ?? '')));
  }
  return out;
}

export function progressTable(rows: ProgressRow[], style: Style): string[] {
  const mark = (row: ProgressRow, stage: Stage) => {
    const reached = row.furthest !== undefined && STAGES.indexOf(stage) <= STAGES.indexOf(row.furthest);
    return reached ? paint(style, 'green', '✓') : paint(style, 'dim', '·');
  };
  const stateMark = (row: ProgressRow) =>
    row.state === 'met' ? paint(style, 'green', '✓ done') : row.state === 'failed' ? paint(style, 'red', '✗ failed') : paint(style, 'yellow', '…');
  return table(
    ['order', 'scenario', ...STAGES, 'status', ''],
    rows.map((row) => [[row.orderName], [row.scenario], ...STAGES.map((s) => [mark(row, s)]), [row.status], [stateMark(row)]]),
    style,
  );
}

/** Redraws the progress table in place on a terminal; elsewhere prints one line per change. */
export class LiveProgress {
  private drawnLines = 0;
  private readonly last = new Map<string, string>();
  private readonly notes: string[] = [];
  private readonly startedAt = Date.now();

  constructor(
    private readonly out: DemoOutput,
    private readonly style: Style,
    private readonly live = Boolean(out.isTTY),
  ) {}

  note(text: string): void {
    const line = `${this.elapsed()}  ${text}`;
    if (this.live) this.notes.push(line);
    else this.out.write(`${line}\n`);
  }

  update(rows: ProgressRow[]): void {
    if (this.live) {
      const lines = [...progressTable(rows, this.style), ...this.notes.slice(-6).map((n) => paint(this.style, 'dim', n))];
      // Up to the first line of the previous drawing, then each line cleared and rewritten.
      const up = this.drawnLines > 0 ? `\x1b[${this.drawnLines}A` : '';
      const width = this.out.columns ?? 0;
      this.out.write(`${up}${lines.map((l) => `\x1b[2K${width > 10 ? fitTo(l, width - 1) : l}\n`).join('')}`);
      this.drawnLines = lines.length;
      return;
    }
    for (const row of rows) {
      const shown = `${row.status}|${row.state}`;
      if (this.last.get(row.orderName) === shown) continue;
      this.last.set(row.orderName, shown);
      const state = row.state === 'met' ? ' ✓' : row.state === 'failed' ? ' ✗' : '';
      this.out.write(`${this.elapsed()}  ${pad(row.orderName, 6)} ${pad(row.scenario, 21)} ${row.status}${state}\n`);
    }
  }

  private elapsed(): string {
    return `${((Date.now() - this.startedAt) / 1000).toFixed(1).padStart(5)}s`;
  }
}

export interface SummaryEntry {
  orderName: string;
  scenario: string;
  expected: Expectation;
  seen: Observation;
  ok: boolean;
  /** Why not, for a failed order: what was missing or wrong. */
  reasons: string[];
  /** What the systems show that proves the story, e.g. the artwork path at the printer. */
  evidence: string[];
}

export function describeExpected(expected: Expectation): string {
  switch (expected.status) {
    case 'shipped':
      return `shipped, ${expected.fulfillments} fulfillment${expected.fulfillments === 1 ? '' : 's'}`;
    case 'held':
      return 'held: needs mapping';
    case 'cancelled':
      return expected.printer === 'nothing' ? 'cancelled, nothing sent' : 'cancelled at printer';
  }
}

export function describeActual(seen: Observation): string {
  const app = seen.app.status ?? 'not received';
  const printer = seen.printer.orders === 0 ? 'nothing' : (seen.printer.status ?? '?');
  return `${app} (printer: ${printer})`;
}

export function summaryTable(entries: SummaryEntry[], style: Style): string[] {
  return table(
    ['order', 'scenario', 'expected', 'actual', '', 'print _id', 'fulfillments in Shopify (tracking)'],
    entries.map((e) => [
      [e.orderName],
      [e.scenario],
      [describeExpected(e.expected)],
      [describeActual(e.seen)],
      [e.ok ? paint(style, 'green', '✓') : paint(style, 'red', '✗')],
      [e.seen.printer.id ?? '—'],
      e.seen.shopify.fulfillments.length > 0
        ? e.seen.shopify.fulfillments.map((f) => `${f.name}  ${f.tracking.map((t) => `${t.company ?? '?'} ${t.number ?? '(no number)'}`).join(', ') || 'no tracking'}`)
        : ['—'],
    ]),
    style,
  );
}
