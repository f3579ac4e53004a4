/**
 * Summarizes V8 .cpuprofile files (from `node --cpu-prof`, e.g. BENCH_GATEWAY_NODE_ARGS="--cpu-prof
 * --cpu-prof-dir=/tmp/prof"): self time by package (or by our own source folder) and the top
 * functions, as percentages of all samples.
 *   node bench/profile-summary.mjs /tmp/prof/*.cpuprofile [--top 25] [--functions 25] [--last-ms N]
 * `--last-ms N` keeps only the samples of the last N ms of each profile (the measured load, not
 * the process's start).
 */
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  if (at < 0) return fallback;
  const [value] = args.splice(at, 2).slice(1);
  return Number(value);
};
const topModules = option('--top', 25);
const topFunctions = option('--functions', 25);
const lastMs = option('--last-ms', Infinity);

/** Where a frame's time belongs: an npm package, a folder of our dist/src, node internals, or V8. */
function moduleOf({ url, functionName }) {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  const own = /dist\/src\/([^/]+(?:\/[^/]+)?)\//.exec(url) ?? /dist\/src\/([^/]+)$/.exec(url);
  if (own) return `src/${own[1]}`;
  if (url.startsWith('node:'))
    return url
      .replace(/^node:/, 'node:')
      .split('/')
      .slice(0, 2)
      .join('/');
  return url.split('/').slice(-2).join('/');
}

const byModule = new Map();
const byFunction = new Map();
let total = 0;
for (const file of args) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const counts = new Map();
  // Sample i was taken at startTime + the sum of timeDeltas[0..i] (µs).
  const times = [];
  let at = profile.startTime;
  for (const delta of profile.timeDeltas) times.push((at += delta));
  const from = profile.endTime - lastMs * 1000;
  profile.samples.forEach((id, i) => {
    if (times[i] >= from) counts.set(id, (counts.get(id) ?? 0) + 1);
  });
  for (const [id, count] of counts) {
    const frame = nodes.get(id).callFrame;
    total += count;
    const module = moduleOf(frame);
    byModule.set(module, (byModule.get(module) ?? 0) + count);
    const fn = `${frame.functionName || '(anonymous)'} ${module}:${frame.lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + count);
  }
}

const pct = (count) => `${((100 * count) / total).toFixed(1).padStart(5)} %`;
const top = (map, n) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n);
console.log(`self time by module (${total} samples)`);
for (const [name, count] of top(byModule, topModules)) console.log(`${pct(count)}  ${name}`);
console.log(`\ntop functions by self time`);
for (const [name, count] of top(byFunction, topFunctions)) console.log(`${pct(count)}  ${name}`);
