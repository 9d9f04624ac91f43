package main

import (
	"io"
	"os"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/core2mdcli"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

// run returns the exit status: 0 ok, 1 bad or unsupported core, 2 usage.
// The command is internal/core2mdcli's, which `minidump-stackwalk core2md`
// runs too.
func run(args []string, stderr io.Writer) int {
	return core2mdcli.Run(args, os.Stdout, stderr)
}
