//go:build linux

package main

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/minidump-stackwalk/minidump-stackwalk/symcompress"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

func main() {
	args := os.Args[1:]
	open := symcompress.Open    // plain, .gz or .zst
	var index *symfile.IndexDir // nil: Wait does nothing
	if len(args) >= 2 && args[0] == "-index" {
		index = symfile.NewIndexDir(args[1], func(err error) { fmt.Fprintln(os.Stderr, "warning:", err) })
		open = index.WithDecompressBudget(symcompress.NewBudget(0, 0)).Open
		args = args[2:]
	}
	if len(args) < 1 {
		fmt.Fprintln(os.Stderr, "usage: symload [-index DIR] FILE.sym [HEXADDR...]")
		os.Exit(2)
	}
	path := args[0]
	start := time.Now()
	f, err := open(path)
	elapsed := time.Since(start)
	if f == nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "warning:", err)
	}
	for _, a := range args[1:] {
		addr, err := strconv.ParseUint(a, 16, 64)
		if err != nil {
			continue
		}
		s, ok := f.Lookup(addr)
		_, cfi := f.CFIRules(addr)
		fmt.Printf("%#x: %v %q +%#x line %s:%d inlines %d cfi %v\n", addr, ok, s.Name, addr-s.Base, s.File, s.Line, len(s.Inlines), cfi)
	}
	index.Wait() // the index written while the lookups ran: part of the run's cost
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	size := f.Size()
	fmt.Printf("bytes %d  open %.3f s  %.0f MB/s  peak RSS %d KiB  RSS/size %.3f\n",
		size, elapsed.Seconds(), float64(size)/1e6/elapsed.Seconds(), ru.Maxrss, float64(ru.Maxrss)*1024/float64(size))
}
