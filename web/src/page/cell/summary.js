/**
 * The one-line summary of a result, for the cell's status line and screen readers. It reads the judge's
 * machine-readable `phase` when the result has one (protocol.js) and falls back to the status and the rows when
 * it does not, so results saved by an older judge still read the same.
 */

/**
 * @param {{status: string, tests?: {outcome: string}[], phase?: string}} result
 * @param {number} timeLimit  seconds, for the timeout's wording
 */
export function summarise(result, timeLimit) {
  const tests = result.tests || [];
  const passed = tests.filter((t) => t.outcome === "passed").length;
  switch (result.status) {
    case "passed": return tests.length === 1 ? "The test passes." : `All ${tests.length} tests pass.`;
    case "failed": return `${passed} of ${tests.length} ${tests.length === 1 ? "test passes" : "tests pass"}.`;
    case "ok": return "Ran without errors.";
    case "timeout":
      return result.phase === "import"
        ? `Stopped at the time limit of ${timeLimit} s while your file was being imported: an infinite loop at its top level? Your code is still here.`
        : `Stopped at the time limit of ${timeLimit} s: an infinite loop, or far too slow. Your code is still here.`;
    case "stopped": return "Stopped. Your code is still here.";
    default: return errorSummary(result, tests);
  }
}

function errorSummary(result, tests) {
  switch (result.phase) {
    case "import": return "Your code did not run; no test could pass.";
    case "collect": return "The hidden tests could not start against your code; no test could pass.";
    case "tampered": return "Nothing was judged: the checking machinery was changed. Python restarts; check again.";
    default: return tests.length ? "Your code did not run; no test could pass." : "Your code raised an error.";
  }
}
