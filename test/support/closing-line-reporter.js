// Prints one plain closing line, "tests: N passed, N failed", that any CI log reader understands.
export default class ClosingLineReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const tail = skipped > 0 ? `, ${skipped} skipped` : '';
    process.stdout.write(
      `tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed${tail}\n`,
    );
  }
}
