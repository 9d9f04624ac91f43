package main

// flagGroups returns the optional flag groups of the command, in the order
// their flags are listed. A group lives in its own file (for example the
// JSON output flags); adding one is a one-line change here.
func flagGroups() []flagGroup {
	return []flagGroup{&rustFlags{}, &dumpFlag{}} // rust-minidump flags; --dump (dumpflag.go)
}
