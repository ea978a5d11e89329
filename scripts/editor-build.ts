/** Bundles the editor's browser code (esbuild: a development dependency, used by `npm run build` and from the sources). */
export async function buildEditorBundle(entry: string, outfile?: string): Promise<string> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    target: 'es2020',
    minify: true,
    legalComments: 'none',
    write: Boolean(outfile),
    ...(outfile ? { outfile } : {}),
    logLevel: 'silent',
  });
  if (outfile) {
    const { readFileSync } = await import('node:fs');
    return readFileSync(outfile, 'utf8');
  }
  return result.outputFiles![0]!.text;
}
