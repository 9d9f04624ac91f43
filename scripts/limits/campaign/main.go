// Command campaign runs the tool on truncated and mutated copies of dumps
// and symbol files and reports the runs that panic, take longer than 5 s
// or peak over 512 MB RSS (docs/limits.md):
//
//	go run ./scripts/limits/campaign BIN SYMDIR DUMP...
//
// Each dump gets 5 truncations and 10 mutations (random bytes, and random
// 32-bit fields set to large counts); the dump's symbol files are used as
// they are. Runs are sequential, each bounded at 60 s.
package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

const (
	maxWall = 5 * time.Second
	maxRSS  = 512 << 10 // KiB
)

func main() {
	if len(os.Args) < 4 {
		fmt.Fprintln(os.Stderr, "usage: campaign BIN SYMDIR DUMP...")
		os.Exit(2)
	}
	bin, syms := os.Args[1], os.Args[2]
	tmp, err := os.MkdirTemp("", "campaign-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(tmp)
	rng := rand.New(rand.NewPCG(17, 17))
	var runs, panics, slow, big int
	var worstWall time.Duration
	var worstRSS int64
	for _, dump := range os.Args[3:] {
		data, err := os.ReadFile(dump)
		if err != nil || len(data) < 64 {
			continue
		}
		for k := range 15 {
			in := mutate(rng, data, k)
			p := filepath.Join(tmp, "in.dmp")
			if err := os.WriteFile(p, in, 0o644); err != nil {
				fail(err)
			}
			wall, rss, stderr := run(bin, p, syms)
			runs++
			worstWall, worstRSS = max(worstWall, wall), max(worstRSS, rss)
			what := ""
			switch {
			case bytes.Contains(stderr, []byte("panic:")) || bytes.Contains(stderr, []byte("goroutine ")):
				panics++
				what = "panic"
			case wall > maxWall:
				slow++
				what = "slow"
			case rss > maxRSS:
				big++
				what = "big"
			}
			if what != "" {
				keep := fmt.Sprintf("%s.%s.%d", filepath.Base(dump), what, k)
				os.WriteFile(keep, in, 0o644)
				fmt.Printf("%s: %s: %v, %d KiB (input kept as %s)\n", dump, what, wall, rss, keep)
			}
		}
	}
	fmt.Printf("%d runs: %d panics, %d over %v, %d over %d MB; worst %v, %d KiB\n",
		runs, panics, slow, maxWall, big, maxRSS>>10, worstWall.Round(time.Millisecond), worstRSS)
}

// mutate returns the k-th variant of data: truncations first, then
// mutated copies.
func mutate(rng *rand.Rand, data []byte, k int) []byte {
	if k < 5 {
		return data[:rng.IntN(len(data))]
	}
	out := append([]byte(nil), data...)
	for range 1 + rng.IntN(16) {
		off := rng.IntN(len(out)-4) &^ 3
		switch rng.IntN(3) {
		case 0:
			out[off] = byte(rng.Uint32())
		case 1:
			binary.LittleEndian.PutUint32(out[off:], 0xffffffff)
		default:
			binary.LittleEndian.PutUint32(out[off:], uint32(rng.IntN(1<<20)))
		}
	}
	return out
}

func run(bin, dump, syms string) (time.Duration, int64, []byte) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, dump, syms)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	_ = cmd.Run()
	wall := time.Since(start)
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss
	}
	return wall, rss, stderr.Bytes()
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "campaign:", err)
	os.Exit(1)
}
