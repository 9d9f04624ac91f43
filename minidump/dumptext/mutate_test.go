package dumptext

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/oracle"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// matchOracle writes data to a temporary file, runs minidump_dump on it and
// compares its stdout with Write's output, which it returns, allowing one
// difference:
// minidump_dump prints
// number_parameters exception parameters from a 15-entry array, running on
// into memory past it (and may crash there); only the array is compared.
func matchOracle(t *testing.T, bin string, data []byte) (got string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "d.dmp")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var w bytes.Buffer
	cmd := exec.Command(bin, p)
	cmd.Stdout = &w
	err := cmd.Run() // exit status 1 when a stream it expects is missing
	var exit *exec.ExitError
	crashed := errors.As(err, &exit) && !exit.Exited()
	var g bytes.Buffer
	if f, err := minidump.NewFile(bytes.NewReader(data), int64(len(data))); err == nil {
		if err := Write(&g, f); err != nil {
			g.Reset()
		}
	}
	got, want := withoutEscapes(g.String()), escaped(w.String()) // oracle_test.go
	if i := strings.Index(want, pastArray); i >= 0 {
		if crashed {
			// Only what minidump_dump flushed before it crashed.
			if !strings.HasPrefix(got, want[:i]) {
				t.Errorf("differs from what minidump_dump printed before crashing: %s", firstDiff(got[:min(i, len(got))], want[:i]))
			}
			return got
		}
		want = pastParameters.ReplaceAllString(want, "")
	}
	if crashed {
		t.Fatalf("minidump_dump crashed")
	}
	if got != want {
		t.Errorf("differs from minidump_dump: %s", firstDiff(got, want))
	}
	return got
}

// pastArray begins the first line minidump_dump prints past the exception
// parameter array; pastParameters matches all of them.
const pastArray = "  exception_record.exception_information[15]"

var pastParameters = regexp.MustCompile(`(?m)^  exception_record\.exception_information\[(1[5-9]|[2-9][0-9]|[0-9]{3,})\] = .*\n`)

// smallDumps are the oracle dumps of at most 256 KiB, with their bytes.
func smallDumps(t *testing.T) map[string][]byte {
	dumps := map[string][]byte{}
	for _, p := range oracleDumps(t) {
		if b, err := os.ReadFile(p); err == nil && len(b) <= 256<<10 {
			dumps[p] = b
		}
	}
	return dumps
}

// TestTruncatedOracle cuts corpus dumps short at many points: Breakpad's
// reader then fails part-way, and every read after the first failure fails
// too; Write must print exactly what minidump_dump prints.
func TestTruncatedOracle(t *testing.T) {
	bin := oracle.Require(t, oracle.Dump)
	if testing.Short() {
		t.Skip("runs minidump_dump a few hundred times")
	}
	for p, data := range smallDumps(t) {
		for _, frac := range []int{2, 20, 50, 80, 98} {
			cut := len(data) * frac / 100
			t.Run(fmt.Sprintf("%s@%d", filepath.Base(p), cut), func(t *testing.T) {
				matchOracle(t, bin, data[:cut])
			})
		}
	}
}

// TestMutatedOracle flips bits in the first bytes of streams of corpus
// dumps (seeded, so reproducible): counts, sizes and offsets that Breakpad
// must reject or follow exactly as Write does.
func TestMutatedOracle(t *testing.T) {
	bin := oracle.Require(t, oracle.Dump)
	if testing.Short() {
		t.Skip("runs minidump_dump a few hundred times")
	}
	rng := rand.New(rand.NewSource(1))
	for _, p := range oracleDumps(t) {
		data, err := os.ReadFile(p)
		if err != nil || len(data) > 256<<10 {
			continue
		}
		f, err := minidump.NewFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		streams := f.Streams()
		for i := 0; i < mutationsPerDump; i++ {
			s := streams[rng.Intn(len(streams))]
			off := s.Off + int64(rng.Intn(int(min(s.Size, 512))+1))
			if off >= int64(len(data)) {
				continue
			}
			m := append([]byte(nil), data...)
			m[off] ^= byte(1 << rng.Intn(8))
			t.Run(fmt.Sprintf("%s@%#x", filepath.Base(p), off), func(t *testing.T) {
				matchOracle(t, bin, m)
			})
		}
	}
}

// mutationsPerDump bounds TestMutatedOracle's runs of minidump_dump.
var mutationsPerDump = 4
