// Package corpus locates the shared reference data (../shared beside the
// repository) for conformance tests, and skips a test with a clear message
// when it is absent.
package corpus
