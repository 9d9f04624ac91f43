// Package symcache is the symbol file cache of a batch run: one cache
// shared by all workers, bounded in bytes, evicting the least recently used
// files, with a run-wide negative cache (a module without symbols is looked
// up once per run, locally and on servers).
//
// A Cache loads through a ContextLoader that does no caching of its own. Each dump
// processed takes a Session, the symfile.Supplier handed to the processor:
// the files a session obtained stay pinned (never closed) until the
// session is closed, so a file is never unmapped under a walk. A file's
// size is its data and its index, with the functions its lookups parsed
// (symfile.File.HeapBytes), measured again whenever the last session using
// it closes. The bound applies to unpinned files: the cache may exceed it by the files pinned
// by the dumps in progress (the per-worker working set).
package symcache
