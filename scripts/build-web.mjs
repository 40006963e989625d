// Bundles web/ per screen with esbuild (see scripts/build-web.sh, which runs
// this): ESM with code splitting, minified, content-hashed names, and a
// manifest the server reads at start-up (server/http/assets.py). The sources in
// web/ stay the app as written; this only makes fewer, smaller files of them.
//
// Usage: node scripts/build-web.mjs [OUT_DIR]   (default build/web)

import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const WEB = join(ROOT, 'web');
const OUT = resolve(process.argv[2] || join(ROOT, 'build', 'web'));

// What the pages start (app.js), what app.js imports on demand (the table
// screens, with the fair dice checks: fairness.js, words.js) and what
// games-loader.js imports by name at run time (every games/<name>.js but the
// helpers they share): each its own file.
const games = readdirSync(join(WEB, 'games'))
  .filter((f) => f.endsWith('.js') && f !== 'shared.js')
  .sort()
  .map((f) => `games/${f}`);
const entries = ['app.js', 'screens/session.js', ...games];

const tmp = `${OUT}.tmp-${process.pid}`;
rmSync(tmp, { recursive: true, force: true });
const result = await esbuild.build({
  absWorkingDir: ROOT,
  entryPoints: entries.map((e) => join(WEB, e)),
  outdir: tmp,
  bundle: true,
  splitting: true,
  format: 'esm',
  minify: true,
  // One folder, flat: a bundle sits where web/'s root modules sit, so the
  // relative URLs they resolve at run time (./games/<name>.js, ./i18n/*.json,
  // through the page's import map) mean the same from a bundle.
  entryNames: '[name]-[hash]',
  chunkNames: 'chunk-[hash]',
  // Safari 16.4 is the app's floor already (import maps, import.meta.resolve).
  target: ['es2022', 'chrome111', 'safari16.4', 'firefox108'],
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});

/** @param {string} p a path esbuild reports (relative to ROOT) */
const site = (p) => `/${relative(tmp, join(ROOT, p)).split('\\').join('/')}`;
/** @param {string} p */
const source = (p) => `/${relative(WEB, join(ROOT, p)).split('\\').join('/')}`;

/** @type {Record<string, string>} */
const entryFiles = {};
/** @type {Record<string, {imports: string[], dynamic: string[]}>} */
const files = {};
/** @type {Record<string, string>} */
const sources = {};
for (const [out, meta] of Object.entries(result.metafile.outputs)) {
  if (!out.endsWith('.js')) continue;
  const url = site(out);
  files[url] = {
    imports: meta.imports.filter((i) => i.kind === 'import-statement' && !i.external).map((i) => site(i.path)),
    dynamic: [...new Set(meta.imports.filter((i) => i.kind === 'dynamic-import' && !i.external).map((i) => site(i.path)))],
  };
  if (meta.entryPoint) entryFiles[source(meta.entryPoint)] = url;
  for (const input of Object.keys(meta.inputs)) {
    // A package (@noble/hashes, the checks' fallback on plain http) is pinned
    // by package-lock.json, not part of web/: the staleness check is web/'s.
    if (input.startsWith('node_modules/')) continue;
    sources[source(input)] = createHash('sha256').update(readFileSync(join(ROOT, input))).digest('hex');
  }
}

const manifest = {
  bundler: `esbuild ${esbuild.version}`,
  entries: entryFiles,
  files,
  // Every source the build read, with its SHA-256: the server uses the build
  // only while web/ still holds exactly these.
  sources: Object.fromEntries(Object.entries(sources).sort()),
};
writeFileSync(join(tmp, 'manifest.json'), `${JSON.stringify(manifest, null, 1)}\n`);
// Swapped in whole: a server starting now sees the old build or the new one.
mkdirSync(dirname(OUT), { recursive: true });
rmSync(OUT, { recursive: true, force: true });
renameSync(tmp, OUT);
console.log(`build-web: ${Object.keys(files).length} files from ${Object.keys(sources).length} sources in ${relative(ROOT, OUT) || OUT}`);
