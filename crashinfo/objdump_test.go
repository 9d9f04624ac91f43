package crashinfo

import (
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
		t.Skipf("%s not installed (apt-get install binutils-aarch64-linux-gnu binutils-arm-linux-gnueabihf): %v", tool, err)
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
