#!/usr/bin/env node
/**
 * The second step of `npm run build`: bundles the gateway's own compiled modules (dist/src, from
 * tsc) into dist/svc/, the CLI that `svc`, `npm start` and the container run. Node 20 loads
 * every ES module file on its own (resolved with a stat per import, read, compiled, linked):
 * the 460-odd files of a start cost about 0.4 s of a 1.7 s start on a slow 2-core machine, and
 * one file per entry point and per lazily imported subsystem (esbuild's code splitting, so what
 * a start does not import still loads on first use) starts about 15 % sooner. npm packages stay
 * outside (`packages: external`): they load from node_modules as they do for dist/src, so there
 * is one copy of each (Nest's classes must be one). Bundled from tsc's output, not from src: the
 * decorator metadata Nest's injection reads is emitted by tsc. Source maps lead back to src
 * (node --enable-source-maps).
 *
 *   node scripts/bundle.mjs        (after tsc -p tsconfig.build.json)
 */
import { build } from 'esbuild';
import { readFile, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = `${root}dist/svc`;

/** A class declaration or expression of tsc's output, up to its body's brace. */
const CLASS =
  /(^[ \t]*|[=;(,]\s*|\bexport\s+(?:default\s+)?)class\s+([\w$]+)(\s+extends\s+[^{]*)?\s*\{/gm;

/**
 * Every class keeps the name it has in src. esbuild renames what two modules both declare, and
 * the class inside tsc's `let X = class X {` of a decorated class, so `X.name` would read `X2`;
 * and class names are read at run time: DTOs name the API description's schemas, providers
 * name their loggers. esbuild's own `keepNames` keeps them too, but also wraps every function
 * and arrow function where it is created, per call on hot paths (an echo run cost about 1.1×
 * the CPU with it); this names classes only, once, in a static block.
 */
const classNames = {
  name: 'class-names',
  setup(builder) {
    builder.onLoad({ filter: /[\\/]dist[\\/]src[\\/].*\.js$/ }, async ({ path }) => ({
      contents: (await readFile(path, 'utf8')).replace(
        CLASS,
        (declaration, _before, name) =>
          `${declaration} static { Object.defineProperty(this, 'name', { value: ${JSON.stringify(name)} }); }`,
      ),
      loader: 'js',
    }));
  },
};

await rm(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: { main: 'dist/src/main.js' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  plugins: [classNames],
  sourcemap: 'linked',
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
});
