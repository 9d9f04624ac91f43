package main

// rust-minidump's flags that select no output: accepted with its meaning
// where ours has one, and said to change nothing where our design needs
// none (--symbols-tmp), so that scripts written for
// rust-minidump run unchanged. --dump and --use-local-debuginfo live with
// their features.

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"
)

// compatFlags are the rust-minidump flags of this file.
type compatFlags struct {
	downloadTimeoutSecs int
	symbolsTmp          string
	noColor             bool
	noInteractive       bool // no progress display, even on a terminal
	recoverArgs         bool
	fs                  *pflag.FlagSet
}

func (c *compatFlags) addFlags(fs *pflag.FlagSet) {
	c.fs = fs
	fs.IntVar(&c.downloadTimeoutSecs, "symbols-download-timeout-secs", 0,
		"rust-minidump's spelling of --symbol-download-timeout, in whole seconds")
	fs.StringVar(&c.symbolsTmp, "symbols-tmp", "",
		"accepted for rust-minidump's scripts; changes nothing: downloads are written to a temp file\n"+
			"inside --symbols-cache and renamed into place, so no separate temp `DIR` is needed")
	fs.BoolVar(&c.noColor, "no-color", false, "our output has no colors; the download progress line is cleared without escape codes")
	fs.BoolVar(&c.noInteractive, "no-interactive", false, "never show the download progress line, even on a terminal")
	fs.BoolVar(&c.recoverArgs, "recover-function-args", false,
		"accepted for rust-minidump's scripts; changes nothing: rust-minidump shows recovered\n"+
			"arguments only in its own human format, which we do not print")
}

// apply checks the flags and carries their meaning into o.
func (c *compatFlags) apply(o *options) error {
	if c.fs == nil || !c.fs.Changed("symbols-download-timeout-secs") {
		return nil
	}
	if c.fs.Changed("symbol-download-timeout") {
		return fmt.Errorf("--symbols-download-timeout-secs and --symbol-download-timeout both bound each download; give one")
	}
	if c.downloadTimeoutSecs <= 0 {
		return fmt.Errorf("--symbols-download-timeout-secs %d: want a positive number of seconds", c.downloadTimeoutSecs)
	}
	o.symbolServer.timeout = time.Duration(c.downloadTimeoutSecs) * time.Second
	return nil
}
