// Package ciformat writes batch results in the formats CI systems read:
// JUnit XML (one test case per dump), SARIF 2.1.0 (one result per crash
// signature, for GitHub code scanning and other SARIF viewers), GitHub
// Actions workflow commands (annotations) and a Markdown job summary.
//
// A Collector keeps, for each result, what these formats show (path,
// status, signature, crash reason and the top frames), not whole stacks.
// A Baseline, read from an earlier run's --summary file, marks the
// signatures not seen before, and FailOn says whether the crashes of a run
// fail it (none, new signatures only, any crash).
package ciformat
