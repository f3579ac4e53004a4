// Preloaded with `--import` into a process under test: when it exits, writes how many CommonJS
// files of each npm package it loaded (the require cache) to the file $LOADED_PACKAGES_FILE.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const { cache } = createRequire(import.meta.url);

process.on('exit', () => {
  const files = {};
  for (const file of Object.keys(cache)) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file);
    if (match) files[match[1]] = (files[match[1]] ?? 0) + 1;
  }
  writeFileSync(process.env.LOADED_PACKAGES_FILE, JSON.stringify(files));
});
