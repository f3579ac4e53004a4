import type { ToolResult } from './builtin/builtin-tool.types.js';
import type { ArgumentsValidator } from './schema-validator.js';
import { answersError, structuredResult } from './tool-answer.js';

/** How many mismatches the error text names. */
const NAMED_ERRORS = 3;

/**
 * A tool with an output schema promises that its structured result (what an MCP client gets as
 * `structuredContent`, see tool-answer.ts) matches it. An answer that does not is a tool error
 * naming why, on every surface; an error answer is left as it is (MCP asks structured content
 * of successful results only, and the tool's own error text is worth more than ours).
 */
export function checkOutput(
  answer: ToolResult,
  toolName: string,
  validate: ArgumentsValidator,
): ToolResult {
  if (answer.isError || answersError(answer.result)) return answer;
  const structured = structuredResult(answer.result);
  const errors =
    structured === undefined
      ? [{ path: '', message: 'must be a JSON object (or MCP content with structuredContent)' }]
      : validate(structured);
  if (errors.length === 0) return answer;
  const summary = errors
    .slice(0, NAMED_ERRORS)
    .map(({ path, message }) => (path ? `${path} ${message}` : message))
    .join('; ');
  return {
    result: `tool "${toolName}" answered a result that does not match its output schema: ${summary}`,
    isError: true,
  };
}
