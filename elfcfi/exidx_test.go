package elfcfi

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// readelfExidx is one entry of readelf -u.
type readelfExidx struct {
	fn          uint64
	cantUnwind  bool
	model       int // -1: a personality routine
	personality uint64
	ops         []string // "0xa8 0xb0|pop {r4, r14}"
}

var (
	exidxHead   = regexp.MustCompile(`^0x([0-9a-f]+)(?: <[^>]*>)?: (.*)$`)
	exidxModel  = regexp.MustCompile(`^  Compact model index: (\d+)$`)
	exidxPers   = regexp.MustCompile(`^  Personality routine: 0x([0-9a-f]+)`)
	exidxOpLine = regexp.MustCompile(`^  ((?:0x[0-9a-f]{2} ?)+)\s+(.*)$`)
)

func parseReadelfU(t *testing.T, text []byte) []*readelfExidx {
	var out []*readelfExidx
	var cur *readelfExidx
	sc := bufio.NewScanner(bytes.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		if m := exidxHead.FindStringSubmatch(line); m != nil {
			fn, _ := strconv.ParseUint(m[1], 16, 64)
			cur = &readelfExidx{fn: fn, cantUnwind: strings.Contains(m[2], "[cantunwind]")}
			out = append(out, cur)
		} else if cur == nil {
			continue
		} else if m := exidxModel.FindStringSubmatch(line); m != nil {
			cur.model, _ = strconv.Atoi(m[1])
		} else if m := exidxPers.FindStringSubmatch(line); m != nil {
			cur.model = -1
			cur.personality, _ = strconv.ParseUint(m[1], 16, 64)
		} else if m := exidxOpLine.FindStringSubmatch(line); m != nil {
			cur.ops = append(cur.ops, strings.TrimSpace(m[1])+"|"+m[2])
		} else if strings.TrimSpace(line) != "" {
			t.Fatalf("readelf -u line not understood: %q", line)
		}
	}
	return out
}

func TestExidxMatchesReadelf(t *testing.T) {
	for _, name := range []string{"arm-eh", "arm-crashdemo"} {
		t.Run(name, func(t *testing.T) {
			var path string
			for _, tf := range testFiles {
				if tf.name == name {
					path = tf.binary
				}
			}
			tables, err := FromELF(openTestELF(t, path))
			if err != nil {
				t.Fatal(err)
			}
			want := parseReadelfU(t, corpus.ReadZstd(t, "testdata/"+name+".exidx.txt.zst"))
			x := tables.Exidx
			if x == nil || x.Len() != len(want) {
				t.Fatalf("exidx %v, readelf lists %d entries", x, len(want))
			}
			ops := 0
			for i, w := range want {
				e, err := x.Entry(i)
				if err != nil {
					t.Fatalf("entry %d: %v", i, err)
				}
				got := &readelfExidx{fn: e.Func, cantUnwind: e.CantUnwind, model: e.Model, personality: e.Personality}
				dec, err := DecodeExidxOps(e.Ops)
				if err != nil {
					t.Errorf("entry %d at %#x: %v", i, e.Func, err)
				}
				for _, op := range dec {
					var hex []string
					for _, b := range op.Bytes {
						hex = append(hex, fmt.Sprintf("0x%02x", b))
					}
					got.ops = append(got.ops, strings.Join(hex, " ")+"|"+op.String())
				}
				if e.CantUnwind {
					got.model = w.model
				}
				if e.Model == -1 && len(w.ops) == 0 {
					// readelf decodes a personality routine's data only
					// when a symbol names it GCC's (not in stripped files).
					got.ops = nil
				}
				if fmt.Sprint(*got) != fmt.Sprint(*w) {
					t.Errorf("entry %d:\n got %v\nwant %v", i, *got, *w)
				}
				ops += len(dec)
				// Find returns the entry for its first and last address.
				for _, pc := range []uint64{e.Func, e.End - 1} {
					if e.End == ^uint64(0) || e.End <= e.Func {
						continue
					}
					if f, err := x.Find(pc); err != nil || f.Offset != e.Offset {
						t.Errorf("Find(%#x) = %v, %v; want entry %d", pc, f, err, i)
					}
				}
			}
			t.Logf("%d entries, %d opcodes equal to readelf's", len(want), ops)
		})
	}
}
