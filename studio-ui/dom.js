// Small helpers the studio's modules share. Data only ever reaches the page as text
// (textContent, SVG text nodes, attribute values), never as markup.

const SVG_NS = 'http://www.w3.org/2000/svg';

export const $ = (id) => document.getElementById(id);

/** An HTML element holding `text`. */
export function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}

/** An SVG element with `attributes` (set as attributes, so CSS classes and data-* work). */
export function svg(tag, attributes = {}, text) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== undefined && value !== null) node.setAttribute(name, String(value));
  }
  if (text !== undefined) node.textContent = String(text);
  return node;
}

/** `value` as one line of at most `max` characters (JSON for anything but a string). */
export function clip(value, max = 160) {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A time of day, or '–'. */
export function clock(iso) {
  if (!iso) return '–';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso) : date.toLocaleTimeString();
}

/** A duration for people: 12 ms, 1.4 s, 2 min 5 s. */
export function duration(ms) {
  if (!Number.isFinite(ms) || ms < 0) return '–';
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** A table row with one cell across `span` columns saying `text`. */
export function emptyRow(span, text) {
  const td = el('td', text, 'empty');
  td.colSpan = span;
  const tr = el('tr');
  tr.append(td);
  return tr;
}

/** Shows `text` in a note element, or hides it when there is nothing to say. */
export function note(node, text) {
  node.textContent = text ?? '';
  node.hidden = !text;
}

const BAR_W = 160;
const BAR_H = 10;

/**
 * A small bar placing [start, end] (epoch ms; end null: still going, up to `to`) within
 * [from, to], coloured by `status` (a `status-…` class).
 */
export function timeBar(start, end, from, to, status) {
  const picture = svg('svg', {
    class: 'bar',
    width: BAR_W,
    height: BAR_H,
    viewBox: `0 0 ${BAR_W} ${BAR_H}`,
    'aria-hidden': 'true',
  });
  picture.append(svg('rect', { class: 'track', width: BAR_W, height: BAR_H, rx: 2 }));
  if (start === null || !(to > from)) return picture;
  const x = ((start - from) / (to - from)) * BAR_W;
  const width = Math.max(2, (((end ?? to) - start) / (to - from)) * BAR_W);
  picture.append(
    svg('rect', {
      class: `span status-${status}`,
      x: Math.min(Math.max(0, x), BAR_W - 2),
      width: Math.min(width, BAR_W),
      height: BAR_H,
      rx: 2,
    }),
  );
  return picture;
}
