import { fileURLToPath } from 'node:url';
import { buildEditorBundle } from './editor-build.js';

// `npm run build`: the mapping editor's browser bundle next to the compiled server (dist/assets/editor.js).
const entry = fileURLToPath(new URL('../web/editor/main.ts', import.meta.url));
const out = fileURLToPath(new URL('../dist/assets/editor.js', import.meta.url));
const text = await buildEditorBundle(entry, out);
process.stdout.write(`mapping editor bundled: ${out} (${Math.round(text.length / 1024)} KiB)\n`);
