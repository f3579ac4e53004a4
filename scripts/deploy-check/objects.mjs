/** Looking things up among one overlay's rendered objects. */

export const byKind = (objects, kind) => objects.filter((object) => object?.kind === kind);

export const named = (objects, kind, name) =>
  objects.find((object) => object?.kind === kind && object.metadata?.name === name);

/** Whether a label selector (`matchLabels`, or a Service's plain map) picks these labels. */
export function selects(selector, labels = {}) {
  const wanted = selector?.matchLabels ?? selector ?? {};
  const entries = Object.entries(wanted);
  return entries.length > 0 && entries.every(([key, value]) => labels[key] === value);
}

/** A probe's or Service's port (a number or a port name) as the container's port number. */
export function portNumber(port, container) {
  if (typeof port === 'number') return port;
  const found = (container.ports ?? []).find((entry) => entry.name === port);
  return found?.containerPort;
}

/** The value after a flag in an argument list (`--port 8080` or `--port=8080`). */
export function flagValue(args, flag) {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === flag) return args[i + 1];
    if (args[i].startsWith(`${flag}=`)) return args[i].slice(flag.length + 1);
  }
  return undefined;
}

const BINARY = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 };
const DECIMAL = { '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12 };

/** A memory quantity (`512Mi`, `1G`, `1073741824`) in bytes; undefined when not one of those. */
export function bytesOf(quantity) {
  const match = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T|)$/.exec(String(quantity ?? ''));
  if (!match) return undefined;
  return Number(match[1]) * (BINARY[match[2]] ?? DECIMAL[match[2]]);
}
