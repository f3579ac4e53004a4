/** One shell command of a README code block and the output shown under it (`# …` lines). */
export interface ReadmeCommand {
  command: string;
  /** The `# ` lines right after the command, joined by spaces; `…` stands for anything. */
  expected?: string;
}

/** The text of the `## heading` section, up to the next `## ` heading. */
export function readmeSection(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`README has no "${heading}" section`);
  const end = markdown.indexOf('\n## ', start + heading.length + 2);
  return markdown.slice(start, end < 0 ? undefined : end);
}

/** True while a command's text has an unclosed single quote or ends in a line continuation. */
function continues(text: string): boolean {
  const quotes = (text.match(/'/g) ?? []).length;
  return quotes % 2 === 1 || text.endsWith('\\');
}

/**
 * The commands of every ```sh block in `section`, in order. A command runs over several lines
 * while a single-quoted argument is open or a line ends in `\`; the `# ` lines that follow it
 * are what it prints.
 */
export function readmeCommands(section: string): ReadmeCommand[] {
  const commands: ReadmeCommand[] = [];
  for (const [, block] of section.matchAll(/```sh\n([\s\S]*?)```/g)) {
    let current: ReadmeCommand | undefined;
    let open = '';
    for (const line of block.split('\n')) {
      if (open) {
        open = `${open}\n${line}`;
        if (!continues(open)) {
          current = { command: open };
          commands.push(current);
          open = '';
        }
      } else if (line.startsWith('# ') && current) {
        current.expected = current.expected
          ? `${current.expected} ${line.slice(2)}`
          : line.slice(2);
      } else if (line.trim() && !line.startsWith('#')) {
        if (continues(line)) open = line;
        else {
          current = { command: line };
          commands.push(current);
        }
      }
    }
  }
  return commands;
}

/** Whether `actual` is what `expected` shows: whitespace-insensitive, `…` matching anything. */
export function matchesShown(actual: string, expected: string): boolean {
  const squash = (text: string) => text.replace(/\s+/g, ' ').trim();
  const pattern = squash(expected)
    .split(/\s*…\s*/)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*?');
  return new RegExp(`^${pattern}$`, 's').test(squash(actual));
}
