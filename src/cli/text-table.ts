/** A column of a text table: numbers are right-aligned, long text is cut with an ellipsis. */
export interface Column<T> {
  title: string;
  value: (row: T) => string | number | null;
  maxWidth?: number;
}

/** Control characters (a newline in a prompt, an escape sequence in a reply) never reach the terminal. */
export function printable(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/\s+/g, ' ').replace(/[\u0000-\u001f\u007f-\u009f]/g, '');
}

function cut(text: string, maxWidth: number | undefined): string {
  if (maxWidth === undefined || text.length <= maxWidth) return text;
  return `${text.slice(0, maxWidth - 1)}…`;
}

/** Rows under a header, columns two spaces apart; `(none)` for no rows. */
export function textTable<T>(columns: Array<Column<T>>, rows: readonly T[]): string {
  const cells = rows.map((row) =>
    columns.map((column) => {
      const value = column.value(row);
      return {
        text: cut(printable(value === null ? '-' : String(value)), column.maxWidth),
        numeric: typeof value === 'number',
      };
    }),
  );
  const widths = columns.map((column, i) =>
    Math.max(column.title.length, ...cells.map((row) => row[i].text.length)),
  );
  const numericColumn = columns.map(
    (_, i) => cells.length > 0 && cells.every((row) => row[i].numeric),
  );
  const line = (texts: string[]) =>
    texts
      .map((text, i) =>
        numericColumn[i]
          ? text.padStart(widths[i])
          : i === texts.length - 1
            ? text
            : text.padEnd(widths[i]),
      )
      .join('  ')
      .trimEnd();
  const header = line(columns.map((column) => column.title));
  if (rows.length === 0) return `${header}\n(none)\n`;
  return [header, ...cells.map((row) => line(row.map((cell) => cell.text)))].join('\n') + '\n';
}
