import { yaml } from '@codemirror/lang-yaml';
import { type Diagnostic, linter, lintGutter } from '@codemirror/lint';
import { EditorView } from '@codemirror/view';
import { basicSetup } from 'codemirror';

/**
 * The mapping editor in the browser: CodeMirror over the form's textarea (which stays the form's value, so saving
 * works as any form), the app's own checks as you type (problems at their line and column, in the editor and in a
 * list), and the preview of the store's latest orders through the text being edited. Bundled by the app and served
 * from its own origin (no CDN). Inside the Shopify admin each request carries App Bridge's session token.
 */

interface Problem {
  line: number;
  col: number;
  message: string;
  severity?: 'error' | 'warning';
}

// `window.shopify`: App Bridge's global as Shopify declares it (@shopify/app-bridge-types, web/tsconfig.json); absent
// outside the Shopify admin (the operator console loads no App Bridge).

async function post(url: string, form: HTMLFormElement, text: string): Promise<Response> {
  const body = new URLSearchParams();
  for (const [name, value] of new FormData(form)) if (typeof value === 'string' && name !== 'yaml') body.set(name, value);
  body.set('yaml', text);
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (window.shopify) headers.Authorization = `Bearer ${await window.shopify.idToken()}`;
  return fetch(url, { method: 'POST', headers, body, credentials: 'same-origin' });
}

function showProblems(list: HTMLElement, problems: Problem[]): void {
  list.replaceChildren(
    ...problems.map((p) => {
      const item = document.createElement('div');
      item.className = 'problem';
      item.dataset.line = String(p.line);
      item.textContent = `line ${p.line}, column ${p.col}: ${p.severity === 'warning' ? 'warning: ' : ''}${p.message}`;
      return item;
    }),
  );
  list.dataset.count = String(problems.length);
}

function renderPreview(target: HTMLElement, result: { problems: string[]; orders: { name: string; ok: boolean; order?: unknown; problems?: string[]; notes?: string[] }[] }): void {
  const parts: HTMLElement[] = [];
  const heading = document.createElement('h3');
  heading.textContent = result.orders.length ? `Your latest ${result.orders.length} order(s) with this mapping (nothing is sent)` : 'Preview';
  parts.push(heading);
  for (const problem of result.problems) {
    const p = document.createElement('p');
    p.className = 'problem';
    p.textContent = problem;
    parts.push(p);
  }
  if (!result.orders.length && !result.problems.length) {
    const p = document.createElement('p');
    p.textContent = 'The store has no orders yet.';
    parts.push(p);
  }
  for (const order of result.orders) {
    const block = document.createElement('div');
    block.className = 'preview-order';
    block.dataset.ok = String(order.ok);
    const title = document.createElement('h3');
    title.textContent = `${order.name}: ${order.ok ? 'print order' : 'cannot be mapped'}`;
    const pre = document.createElement('pre');
    pre.className = 'mono';
    pre.textContent = order.ok ? JSON.stringify(order.order, null, 2) : (order.problems ?? []).join('\n');
    block.append(title, pre);
    parts.push(block);
  }
  target.replaceChildren(...parts);
}

function start(): void {
  const textarea = document.querySelector<HTMLTextAreaElement>('textarea[data-editor="yaml"]');
  const form = textarea?.closest('form');
  if (!textarea || !form || textarea.dataset.ready) return;
  textarea.dataset.ready = 'true';
  const problemsList = document.getElementById('mapping-problems')!;
  const checkUrl = form.dataset.check!;
  const previewUrl = form.dataset.preview!;

  const check = linter(
    async (view) => {
      const text = view.state.doc.toString();
      let problems: Problem[] = [];
      try {
        const answer = await post(checkUrl, form, text);
        problems = ((await answer.json()) as { problems?: Problem[] }).problems ?? [];
      } catch {
        return [];
      }
      showProblems(problemsList, problems);
      const doc = view.state.doc;
      return problems.map((p): Diagnostic => {
        const line = doc.line(Math.min(Math.max(1, p.line), doc.lines));
        const from = Math.min(line.from + Math.max(0, p.col - 1), line.to);
        return { from, to: Math.max(from, line.to), severity: p.severity === 'warning' ? 'warning' : 'error', message: p.message };
      });
    },
    { delay: 300 },
  );

  let discarding = false;
  const view = new EditorView({
    doc: textarea.value,
    extensions: [
      basicSetup,
      yaml(),
      check,
      lintGutter(),
      EditorView.lineWrapping,
      EditorView.updateListener.of((update) => {
        // The textarea stays the form's value: saving is an ordinary form post.
        if (!update.docChanged) return;
        textarea.value = update.state.doc.toString();
        // An edit is an input of the form (the embedded pages' save bar shows), not the save bar's own Discard.
        if (!discarding) textarea.dispatchEvent(new Event('input', { bubbles: true }));
      }),
      EditorView.contentAttributes.of({ 'aria-label': 'Mapping (YAML)' }),
      // A merchant on the operator's print account sees the mapping that serves the store but cannot change it.
      EditorView.editable.of(!textarea.readOnly),
    ],
  });
  // The save bar's Discard resets the form: the editor shows the text as it was loaded again.
  form.addEventListener('reset', () =>
    setTimeout(() => {
      discarding = true;
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: textarea.defaultValue } });
      discarding = false;
    }),
  );
  textarea.style.display = 'none';
  textarea.after(view.dom);
  (window as unknown as { mappingEditor: EditorView }).mappingEditor = view;

  const previewButton = document.getElementById('preview-button');
  const previewTarget = document.getElementById('draft-preview')!;
  previewButton?.addEventListener('click', async () => {
    previewTarget.textContent = 'Reading your latest orders…';
    try {
      const answer = await post(previewUrl, form, view.state.doc.toString());
      renderPreview(previewTarget, (await answer.json()) as Parameters<typeof renderPreview>[1]);
    } catch {
      previewTarget.textContent = 'The app could not be reached. Try again.';
    }
  });
}

// The embedded pages' script may replace the page's content after a form (a refused save): start again then.
new MutationObserver(() => start()).observe(document.documentElement, { childList: true, subtree: true });
if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
