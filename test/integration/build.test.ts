import { spawnSync } from 'node:child_process';
import { builtinModules } from 'node:module';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropSchema, TEST_DATABASE_URL, testSchemaName } from '../helpers/database.js';

/**
 * Issue 15, production build: `npm run build` compiles to JavaScript, and the app as the image holds it (dist/, bin/,
 * drizzle/, package.json; no src/, no TypeScript loader) runs from it. The Dockerfile's promises are checked as far
 * as a machine without Docker can.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string>; scripts: Record<string, string> };

describe('the production build', () => {
  let app: string;
  const schema = testSchemaName('build');
  beforeAll(() => {
    app = mkdtempSync(join(tmpdir(), 'pb-image-'));
    // The same JavaScript as `npm run build` emits, without its type check (--noCheck: half the time, 4 s instead of 9
    // on a 2-core machine). The check is not lost: image.test.ts runs `npm run build` itself, which type-checks this
    // same tsconfig.build.json and fails on any error, and `npm run typecheck` checks src/ with the tests.
    const built = spawnSync(
      process.execPath,
      [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', join(app, 'dist'), '--noCheck'],
      { encoding: 'utf8' },
    );
    expect(built.status, built.stdout + built.stderr).toBe(0);
    for (const dir of ['bin', 'drizzle', 'mappings']) cpSync(join(ROOT, dir), join(app, dir), { recursive: true });
    writeFileSync(join(app, 'package.json'), JSON.stringify(pkg));
    symlinkSync(join(ROOT, 'node_modules'), join(app, 'node_modules'));
  }, 120_000);
  afterAll(async () => {
    rmSync(app, { recursive: true, force: true });
    await dropSchema(schema);
  });

  it('runs the compiled command line without src/ and without a TypeScript loader', () => {
    const help = spawnSync(process.execPath, [join(app, 'bin/print-bridge.js'), '--help'], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain('print-bridge');
    const migrate = spawnSync(process.execPath, [join(app, 'bin/print-bridge.js'), 'db', 'migrate'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: schema },
    });
    expect(migrate.stderr).toBe('');
    expect(migrate.stdout).toMatch(/[1-9]\d* migration\(s\) applied, the schema is current/);
  });

  it('needs only runtime dependencies: every package the compiled code imports is in dependencies, and tsx is not', () => {
    const imported = new Set<string>();
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name.endsWith('.js')) {
          const text = readFileSync(path, 'utf8');
          const specs = [...text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+['"]([^'".][^'"]*)['"]/gm), ...text.matchAll(/^\s*import\s+['"]([^'".][^'"]*)['"]/gm), ...text.matchAll(/\bimport\(\s*['"]([^'".][^'"]*)['"]\s*\)/g)];
          for (const m of specs) {
            const spec = m[1]!;
            imported.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
          }
        }
      }
    };
    walk(join(app, 'dist'));
    const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
    const missing = [...imported].filter((name) => !builtins.has(name) && !name.startsWith('node:') && !(name in pkg.dependencies));
    expect(missing).toEqual([]);
    expect(imported.has('tsx')).toBe(false);
    expect(pkg.dependencies).not.toHaveProperty('tsx');
    expect(pkg.scripts.build).toContain('tsconfig.build.json');
  });

  it('has a Dockerfile that installs without dev dependencies, runs as a non-root user and checks its health', () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\n?.*\/healthz/m);
    // The image is the command line: `docker run IMAGE web` runs `print-bridge web`, and nothing after the name, `start`.
    expect(dockerfile).toMatch(/^ENTRYPOINT \["node", "bin\/print-bridge\.js"\]$/m);
    expect(dockerfile).toMatch(/^CMD \["start"\]$/m);
    for (const copied of dockerfile.matchAll(/^COPY (?!--from)(\S+)/gm)) {
      expect(existsSync(join(ROOT, copied[1]!)), copied[1]).toBe(true);
    }
  });
});
