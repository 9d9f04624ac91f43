// Package summary groups batch results by crash signature: counts, the
// distinct stacks of each group (by stack_id, with their frames stored once
// in the summary), example dumps, crash reasons, the modules and versions
// involved, and the dumps' systems and products (configs). Run records the
// run behind a summary (date, version, command line, inputs, symbol paths).
// A Builder takes results as they come; its Summary is
// written as JSON (--summary) and as a short text table. Merge combines the
// summaries of shards into the summary one process would have made of all
// their inputs: counts add, and the bounded lists (examples, failures) keep
// the smallest paths, so that the result does not depend on how the inputs
// were split.
package summary
