// Package corpus locates what tests read besides their own package: the
// shared reference data (../shared beside the repository), testdata/ and
// its compressed cores, and the test cache .ci/run fills (TestCacheDir:
// Breakpad's binaries, the perf corpus's symbols). A test whose data is
// absent is skipped with a message saying how to get it.
// RunWithPrivateUserCache keeps a package's tests out of the user's own
// caches.
// CopyTestdata gives a test its own copy of a testdata tree to change, and
// GrowPastReadWhole makes a dump large enough that the reader maps it.
package corpus
