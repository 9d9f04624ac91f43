//go:build linux

// Command runs times short runs of several command lines, interleaved, one
// process per run: wall time, CPU time (user+sys, all threads) and minor
// page faults, each from the child's own rusage. A run of a tiny dump is a
// few milliseconds, mostly process start-up, where page faults (2–5 µs each
// on a VM) and CPU matter more than the shell's timing can show.
//
//	usage: go run ./scripts/bench/runs [-n RUNS] [-block K] 'CMD ARGS...' 'CMD ARGS...' ...
//
// With -block K each command line runs K times in a row before the next
// one's turn: a process's exit leaves the kernel work (freeing its pages)
// that overlaps the next start, which alternating single runs would share
// out between the programs compared.
//
// Each command line is split on spaces (no quoting); its output goes to
// /dev/null. Prints, per command, the minimum, 25th percentile and median
// wall and CPU milliseconds and the mean page faults.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"
)

func main() {
	runs := flag.Int("n", 200, "runs of each command line")
	block := flag.Int("block", 1, "runs of one command line in a row before the next one's")
	flag.Parse()
	if flag.NArg() == 0 || *runs < 1 || *block < 1 {
		fmt.Fprintln(os.Stderr, "usage: runs [-n RUNS] [-block K] 'CMD ARGS...' ...")
		os.Exit(2)
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	lines := flag.Args()
	wall := make([][]float64, len(lines))
	cpu := make([][]float64, len(lines))
	faults := make([]int64, len(lines))
	for done := 0; done < *runs; done += *block {
		for i, line := range lines {
			for range min(*block, *runs-done) {
				w, c, f, err := runOnce(strings.Fields(line), devnull)
				if err != nil {
					fmt.Fprintf(os.Stderr, "%s: %v\n", line, err)
					os.Exit(1)
				}
				wall[i], cpu[i], faults[i] = append(wall[i], w), append(cpu[i], c), faults[i]+f
			}
		}
	}
	fmt.Printf("%-10s %-22s %-22s %7s  %s\n", "", "wall min/p25/median", "cpu min/p25/median", "faults", "command")
	for i, line := range lines {
		fmt.Printf("%-10s %-22s %-22s %7d  %s\n", fmt.Sprintf("#%d", i+1), stats(wall[i]), stats(cpu[i]), faults[i]/int64(*runs), line)
	}
}

// runOnce runs argv and returns its wall and CPU milliseconds and minor
// page faults. A non-zero exit status is not an error: a walk of a dump
// may exit 1.
func runOnce(argv []string, out *os.File) (wall, cpu float64, faults int64, err error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = out, out
	start := time.Now()
	err = cmd.Run()
	wall = float64(time.Since(start).Microseconds()) / 1000
	if _, exited := err.(*exec.ExitError); exited {
		err = nil
	}
	if err != nil {
		return 0, 0, 0, err
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu = float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e6
	return wall, cpu, int64(ru.Minflt), nil // int32 on 32-bit Linux
}

// stats formats the minimum, 25th percentile and median of ms.
func stats(ms []float64) string {
	s := slices.Sorted(slices.Values(ms))
	return fmt.Sprintf("%.2f/%.2f/%.2f", s[0], s[len(s)/4], s[len(s)/2])
}
