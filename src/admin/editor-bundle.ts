import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The mapping editor's browser code (web/editor/main.ts with CodeMirror), served by the app itself: no CDN. The
 * production build bundles it into dist/assets/editor.js (`npm run build`); running from the sources (development,
 * tests) it is bundled on first request with esbuild, a development dependency.
 */
const BUILT = fileURLToPath(new URL('../assets/editor.js', import.meta.url));
const SOURCE = fileURLToPath(new URL('../../web/editor/main.ts', import.meta.url));
/** The bundler, outside the compiled server (its esbuild is a development dependency): used from the sources only. */
const BUILDER = new URL('../../scripts/editor-build.ts', import.meta.url);

let bundle: Promise<string> | undefined;

export function editorBundle(): Promise<string> {
  bundle ??= load();
  bundle.catch(() => {
    bundle = undefined;
  });
  return bundle;
}

async function load(): Promise<string> {
  if (existsSync(BUILT)) return readFileSync(BUILT, 'utf8');
  if (!existsSync(SOURCE)) throw new Error(`the mapping editor is not built (${BUILT} is missing): run npm run build`);
  const { buildEditorBundle } = (await import(BUILDER.href)) as { buildEditorBundle(entry: string): Promise<string> };
  return buildEditorBundle(SOURCE);
}
