/** Plain-text tables and number formatting for the report. */

export function fixed(value, digits) {
  return Number.isFinite(value) ? value.toFixed(digits) : 'n/a';
}

export function ratio(numerator, denominator) {
  return denominator > 0 && Number.isFinite(numerator) ? numerator / denominator : NaN;
}

/** One load measurement over another: req/s and CPU per request, each as a ratio. */
export function loadRatios(measured, base) {
  return {
    reqPerSec: ratio(measured.reqPerSec, base.reqPerSec),
    cpuUsPerReq: ratio(measured.cpuUsPerReq, base.cpuUsPerReq),
  };
}

/** Columns after the first are right-aligned (numbers). */
export function renderTable(headers, rows) {
  const cells = [headers, ...rows].map((row) => row.map(String));
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => row[i].length)));
  const line = (row) =>
    row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  return [line(cells[0]), rule, ...cells.slice(1).map(line)].join('\n');
}
