package main

import (
	"strings"

	"github.com/spf13/pflag"
)

// stringList is a repeatable string flag with the semantics of pflag's
// StringArray (every use adds one value, commas included). pflag's own type
// formats its default through encoding/csv when the flag is defined, which
// costs a 4 KiB buffer per flag at every start of the program; a single-dump
// run is mostly start-up (docs/performance.md, "Startup").
type stringList struct {
	values  *[]string
	changed bool
}

// addStringList defines a stringList flag storing into *p, like
// fs.StringArrayVar(p, name, nil, usage).
func addStringList(fs *pflag.FlagSet, p *[]string, name, usage string) {
	fs.Var(&stringList{values: p}, name, usage)
}

func (s *stringList) Set(v string) error {
	if !s.changed {
		*s.values = nil // the first use replaces the default, as in pflag
		s.changed = true
	}
	*s.values = append(*s.values, v)
	return nil
}

// Type is pflag's name for the type, which the help shows.
func (s *stringList) Type() string { return "stringArray" }

// String is "" for no values, so the help prints no "(default [])".
func (s *stringList) String() string {
	if len(*s.values) == 0 {
		return ""
	}
	return "[" + strings.Join(*s.values, ",") + "]"
}
