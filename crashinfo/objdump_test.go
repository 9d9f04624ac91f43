package crashinfo

import (
	"bufio"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// objdump disassembles one instruction with GNU objdump, the independent
// oracle for our decoders. The test skips when the cross objdump is not
// installed (Debian: binutils-aarch64-linux-gnu, binutils-arm-linux-gnueabihf).
func objdump(t *testing.T, arch string, thumb bool, code []byte) string {
	t.Helper()
	var tool string
	var args []string
	switch arch {
	case "x86":
		tool, args = "objdump", []string{"-m", "i386", "-M", "intel"}
	case "amd64":
		tool, args = "objdump", []string{"-m", "i386:x86-64", "-M", "intel"}
	case "arm":
		tool, args = "arm-linux-gnueabihf-objdump", []string{"-m", "arm"}
		if thumb {
			args = append(args, "-M", "force-thumb")
		}
	case "arm64":
		tool, args = "aarch64-linux-gnu-objdump", []string{"-m", "aarch64"}
	}
	path, err := exec.LookPath(tool)
	if err != nil {
		if text, ok := objdumpGolden(t)[goldenKey(arch, thumb, code)]; ok {
			return text
		}
		t.Skipf("%s not installed (apt-get install binutils-aarch64-linux-gnu binutils-arm-linux-gnueabihf) "+
			"and % x not in %s: %v", tool, code, goldenPath, err)
	}
	bin := filepath.Join(t.TempDir(), "code.bin")
	if err := os.WriteFile(bin, code, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(path, append([]string{"-D", "-b", "binary"}, append(args, bin)...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", tool, err, out)
	}
	// The first instruction line: "   0:\t<hex>\t<text>".
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "0:") {
			f := strings.SplitN(line, "\t", 3)
			if len(f) == 3 {
				return f[2]
			}
		}
	}
	t.Fatalf("no instruction in objdump's output:\n%s", out)
	return ""
}

var (
	objdumpComment = regexp.MustCompile(`\s*[@;#]\s*(\(?0x[0-9a-f]+\)?|<.*>).*$`)
	spaces         = regexp.MustCompile(`\s+`)
)

// normalize reduces both spellings to one: lower case, no spaces, no
// objdump comments; for x86, Intel "PTR" and the implicit "ds:" dropped
// (yaxpeax omits them).
func normalize(s string) string {
	s = strings.ToLower(objdumpComment.ReplaceAllString(s, ""))
	s = strings.ReplaceAll(s, " ptr ", " ")
	s = strings.ReplaceAll(s, "ds:", "")
	s = strings.ReplaceAll(s, "es:", "")
	return spaces.ReplaceAllString(s, "")
}

// goldenPath records objdump's readings of every code sequence the tests
// use, for machines without the cross binutils. Made by
//
//	go test ./crashinfo -run TestObjdumpGolden -update-objdump
//
// with Debian 12's binutils 2.40 (objdump, arm-linux-gnueabihf-objdump,
// aarch64-linux-gnu-objdump); TestObjdumpGolden checks it against the
// installed tools.
const goldenPath = "testdata/objdump.txt"

var updateObjdump = flag.Bool("update-objdump", false, "rewrite "+goldenPath+" from the installed objdump")

func goldenKey(arch string, thumb bool, code []byte) string {
	if thumb {
		arch += "-thumb"
	}
	return arch + " " + hex.EncodeToString(code)
}

func objdumpGolden(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	f, err := os.Open(goldenPath)
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "\t"); ok && !strings.HasPrefix(k, "#") {
			out[k] = v
		}
	}
	return out
}

// goldenCases are the code sequences of the tests: archCases and the
// crashing instructions of testdata/dumps.
func goldenCases(t *testing.T) []struct {
	arch  string
	thumb bool
	code  []byte
} {
	var out []struct {
		arch  string
		thumb bool
		code  []byte
	}
	for _, c := range archCases {
		out = append(out, struct {
			arch  string
			thumb bool
			code  []byte
		}{archName(c.arch), c.thumb, c.code})
	}
	for _, d := range realCrashCode(t) {
		out = append(out, struct {
			arch  string
			thumb bool
			code  []byte
		}{d.arch, d.thumb, d.code})
	}
	return out
}

// TestObjdumpGolden checks (or with -update-objdump rewrites) the recorded
// objdump readings against the installed objdump.
func TestObjdumpGolden(t *testing.T) {
	for _, tool := range []string{"objdump", "arm-linux-gnueabihf-objdump", "aarch64-linux-gnu-objdump"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed: %v", tool, err)
		}
	}
	golden := objdumpGolden(t)
	var lines []string
	for _, c := range goldenCases(t) {
		text := objdump(t, c.arch, c.thumb, c.code)
		key := goldenKey(c.arch, c.thumb, c.code)
		lines = append(lines, key+"\t"+text)
		if !*updateObjdump && golden[key] != text {
			t.Errorf("%s: objdump says %q, %s %q", key, text, goldenPath, golden[key])
		}
	}
	if *updateObjdump {
		head := "# objdump's reading of each test's code: \"arch[-thumb] hex<TAB>text\".\n" +
			"# Made by: go test ./crashinfo -run TestObjdumpGolden -update-objdump (binutils 2.40, Debian 12)\n"
		if err := os.WriteFile(goldenPath, []byte(head+strings.Join(dedupLines(lines), "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Println("wrote", goldenPath)
	}
}

func dedupLines(lines []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range lines {
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	return out
}
