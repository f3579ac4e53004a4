// Prints one plain closing line, "tests: N passed, N failed", as the very last line of the run, so
// any CI log reader finds the counts where it looks.
export default class ClosingLineReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const tail = skipped > 0 ? `, ${skipped} skipped` : '';
    const line = `tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed${tail}\n`;
    process.once('exit', () => process.stderr.write(line));
  }
}
