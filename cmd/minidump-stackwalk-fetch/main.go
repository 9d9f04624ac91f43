// Command minidump-stackwalk-fetch makes the HTTP and HTTPS requests of
// minidump-stackwalk's symbol servers and debuginfod, as git runs
// git-remote-https: minidump-stackwalk runs it when a run asks a server
// (found beside minidump-stackwalk first, then on PATH), so that the
// command itself links neither net/http nor TLS and starts faster.
//
// It is not meant to be run by hand. It reads requests on its standard
// input and writes their answers on its standard output, in the frames
// internal/fetch's helperwire.go describes, until its input ends. Every
// bound (timeouts, sizes, rates, retries) and the cache are
// minidump-stackwalk's (docs/limits.md); this program only makes the
// exchanges. Exit status: 0 when its input ended, 1 on a broken frame, 2
// when run with arguments.
package main

import (
	"fmt"
	"os"
	"os/signal"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/fetch"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/fetch/nethttp"
)

func main() {
	if len(os.Args) > 1 {
		fmt.Fprintf(os.Stderr, "%s: makes minidump-stackwalk's symbol downloads; it takes no arguments and is run by minidump-stackwalk\n", fetch.HelperName)
		os.Exit(2)
	}
	// A terminal's Ctrl-C reaches the whole process group: the command
	// decides what an interrupt stops (batch finishes its dumps in
	// flight), and this program ends when its input does.
	signal.Ignore(os.Interrupt)
	if err := fetch.ServeHelper(os.Stdin, os.Stdout, nethttp.New(nil)); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", fetch.HelperName, err)
		os.Exit(1)
	}
}
