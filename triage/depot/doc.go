// Package depot interns stacks, as sanitizers' StackDepot does: each
// distinct stack is stored once and named by its stack_id, a hash of its
// frames, so that a run over many dumps costs memory per distinct stack,
// not per dump. The id depends only on the frames (module, function, file,
// line, offset, trust), so the same stack gets the same id in every
// process, and depots of shards merge by id.
package depot
