// Package signature makes crash signatures as crash-report servers such as
// Mozilla's Socorro do: a short string naming the crashing stack by its
// top frames that matter, the same for every crash of one bug, so that
// crashes can be counted by bug.
//
// Each frame is first normalised: a function name loses its parameter
// list, template arguments become <T>, GCC clone suffixes ([clone .cold])
// and Rust hashes (::h0123abcd...) go, spaces before * & , go and each
// comma is followed by one space; a frame without a function is named
// file#line when the source is known, module@0xoffset inside a module, and
// @0xaddress otherwise.
//
// Then the frames are read innermost first (from the first sentinel frame
// when the stack has one): a frame matching an irrelevant rule is skipped
// (abort, raise, __assert_fail, memcpy, operator new, exception dispatch,
// ...); a frame matching a prefix rule is kept and the next frame is read
// too; the first other frame is kept and ends the signature. The kept
// frames are joined with " | ".
//
// The rules are a text file (rules.txt is the default, embedded); Parse
// reads a replacement. Its format is documented at the top of rules.txt.
//
// Grouping rules (ParseGrouping, Rules.WithGrouping) come on top of these
// lists, in the spirit of Sentry's stack-trace rules: lines of matchers
// (function:, module:, path:, app:, family:, globs, ! to negate) and
// actions (+app/-app, +group/-group, +prefix, +sentinel, each also ^ for
// the frames above the match or v for those below; max-frames=N), run on
// every frame from the first line to the last. Frames out of the group are
// skipped as irrelevant ones are; when any frame is in-app, only in-app
// frames make the signature (docs/batch.md, "Grouping rules").
package signature
