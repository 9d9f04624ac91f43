package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// --verbose=trace logs each step of each walk: for every frame of every
// thread the rule that found it (outcome=found), the steps rejected before
// it, and the end of each walk; as many frames as the JSON report holds.
func TestVerboseTraceShowsEveryFrame(t *testing.T) {
	syms := corpus.Testdata(t, "symbols")
	for _, name := range []string{"arm-nofp", "x86-threads", "amd64-fp", "arm64-nofp"} {
		dump := corpus.Testdata(t, "dumps", name+".dmp")
		logFile := filepath.Join(t.TempDir(), "log")
		status, out, _ := runArgs("--json", "--verbose=trace", "--log-file", logFile, dump, syms)
		if status != exitOK {
			t.Fatalf("%s: exit %d", name, status)
		}
		var doc struct {
			Threads []struct {
				Frames []json.RawMessage `json:"frames"`
			} `json:"threads"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		jsonFrames := 0
		for _, th := range doc.Threads {
			jsonFrames += len(th.Frames)
		}
		data, err := os.ReadFile(logFile)
		if err != nil {
			t.Fatal(err)
		}
		log := string(data)
		found := map[[2]int]bool{}
		for _, m := range regexp.MustCompile(`msg=walk thread=(\d+) frame=(\d+) rule=\w+ outcome=found`).FindAllStringSubmatch(log, -1) {
			th, _ := strconv.Atoi(m[1])
			f, _ := strconv.Atoi(m[2])
			found[[2]int{th, f}] = true
		}
		traced := 0
		for _, m := range regexp.MustCompile(`msg="walk ended" thread=(\d+) frames=(\d+)`).FindAllStringSubmatch(log, -1) {
			th, _ := strconv.Atoi(m[1])
			n, _ := strconv.Atoi(m[2])
			traced += n
			for f := 0; f < n; f++ {
				if !found[[2]int{th, f}] {
					t.Errorf("%s: thread %d frame %d: no step says how it was found", name, th, f)
				}
			}
		}
		if traced == 0 || traced != jsonFrames {
			t.Errorf("%s: trace ends walks with %d frames, the JSON report holds %d", name, traced, jsonFrames)
		}
		if !regexp.MustCompile(`outcome=rejected note="[^"]+"`).MatchString(log) {
			t.Errorf("%s: no rejected step in the trace", name)
		}
	}
}
