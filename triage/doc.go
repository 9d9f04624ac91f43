// Package triage holds the plain per-dump result of batch triage (Result,
// Frame) that the signature, depot, summary and HTML report packages read.
// The types carry strings and numbers only, not the processor's model, so
// that any front end that walks a dump can fill them.
//
// The subpackages:
//   - signature: Socorro-style crash signatures from a crashing stack, with
//     the rules in a replaceable data file.
//   - depot: interned stacks, each named by a content hash (stack_id).
//   - summary: groups of results by signature, and the merge of shard
//     summaries.
//   - htmlreport: one self-contained HTML page over a summary.
//   - ciformat: JUnit XML, SARIF 2.1.0, GitHub Actions annotations and job
//     summary of a run's results, and new-signature detection against a
//     baseline summary.
//   - symcache: a byte-bounded, LRU symbol file cache shared by the workers
//     of a run, with a run-wide negative cache.
package triage
