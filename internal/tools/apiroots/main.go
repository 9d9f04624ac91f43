// Command apiroots uses the module as a library, as its documentation and
// the root package's Examples show: it is the root from which .ci/run's
// deadcode sees the library API that the commands do not call (deadcode
// reaches only what main packages call, and the API of a library is
// reached by its users' programs). It is not a tool; it works, though:
//
//	apiroots [-plain] [-json] [-microdump] SYMBOL-DIR FILE...
//
// prints each dump's brief report (or rust-minidump's JSON) walked with the
// Breakpad store at SYMBOL-DIR (-plain: .sym files only, no compressed
// ones); -microdump reads the files as microdumps through microdump.Open.
// A function the API documents belongs here when no command calls it;
// one that no user of the library needs does not: remove it instead.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	stackwalk "github.com/minidump-stackwalk/minidump-stackwalk"
	"github.com/minidump-stackwalk/minidump-stackwalk/microdump"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
	"github.com/minidump-stackwalk/minidump-stackwalk/report"
	"github.com/minidump-stackwalk/minidump-stackwalk/symcompress"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

func main() {
	plain := flag.Bool("plain", false, "read only uncompressed .sym files (symfile.NewDirSupplier)")
	asJSON := flag.Bool("json", false, "print rust-minidump's JSON (report.WriteStateJSON)")
	micro := flag.Bool("microdump", false, "read the files as microdumps (microdump.Open)")
	flag.Parse()
	if flag.NArg() < 2 {
		fmt.Fprintln(os.Stderr, "usage: apiroots [-plain] [-json] [-microdump] SYMBOL-DIR FILE...")
		os.Exit(2)
	}
	var syms symfile.Supplier = symcompress.NewDirSupplier(flag.Arg(0))
	if *plain {
		syms = symfile.NewDirSupplier(flag.Arg(0))
	}
	status := 0
	for _, path := range flag.Args()[1:] {
		st, err := process(path, syms, *micro)
		if err == nil {
			err = write(os.Stdout, st, *asJSON)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "apiroots: %s: %v\n", path, err)
			status = 1
		}
	}
	os.Exit(status)
}

func process(path string, syms symfile.Supplier, micro bool) (*processor.ProcessState, error) {
	if micro {
		d, err := microdump.Open(path)
		if err != nil {
			return nil, err
		}
		return processor.ProcessMicrodump(d, syms, processor.Options{})
	}
	d, err := stackwalk.Open(path)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Process(syms, processor.Options{})
}

func write(w io.Writer, st *processor.ProcessState, asJSON bool) error {
	if asJSON {
		return report.WriteStateJSON(w, st, report.JSONOptions{}, true)
	}
	return report.WriteBrief(w, st)
}
