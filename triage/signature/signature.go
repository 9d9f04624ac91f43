package signature

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/minidump-stackwalk/minidump-stackwalk/triage"
)

// Separator joins the frames of a signature.
const Separator = " | "

// Signatures given when there is no stack to name.
const (
	EmptyNoThread = "EMPTY: no crashing thread identified"
	EmptyNoFrames = "EMPTY: no frame data available"
)

// Generate returns the signature of a crashing stack (innermost frame
// first). haveThread is false when no crashing thread is known.
func (r *Rules) Generate(frames []triage.Frame, haveThread bool) string {
	if !haveThread {
		return EmptyNoThread
	}
	if len(frames) > r.MaxFrames {
		frames = frames[:r.MaxFrames]
	}
	st := r.frameStates(frames)
	if len(st) == 0 {
		return EmptyNoFrames
	}
	limit := r.grouping.apply(st) // grouping.go
	for i := range st {
		if st[i].sentinel {
			st = st[i:]
			break
		}
	}
	top := st[0].name
	st = inApp(st)
	var kept []string
	for _, s := range st {
		if !s.group {
			continue
		}
		if len(kept) > 0 && s.name == kept[len(kept)-1] && !strings.Contains(s.name, "@0x") {
			continue // a trimmed module repeated
		}
		kept = append(kept, s.name)
		if !s.prefix || len(kept) == limit {
			break
		}
	}
	sig := strings.Join(kept, Separator)
	if sig == "" {
		sig = top // every frame irrelevant: name the crash by its top
	}
	return r.cut(sig)
}

// inApp returns the in-app frames of st when grouping rules marked any
// (a signature is then made of the application's own frames, as Sentry
// groups), else st.
func inApp(st []frameState) []frameState {
	var app []frameState
	for _, s := range st {
		if s.app == 1 {
			app = append(app, s)
		}
	}
	if len(app) == 0 {
		return st
	}
	return app
}

// frameName is the normalised name of a frame.
func (r *Rules) frameName(f *triage.Frame) string {
	switch {
	case f.Function != "":
		rust := strings.HasSuffix(f.File, ".rs")
		return NormalizeFunction(f.Function, rust)
	case f.File != "" && f.Line > 0:
		return pathBase(f.File) + "#" + strconv.Itoa(f.Line)
	case f.Module == "":
		return "@" + f.Offset
	case matches(r.trimModule, f.Module):
		return f.Module
	}
	return f.Module + "@" + f.Offset
}

// cut shortens sig to MaxLength bytes, on a UTF-8 boundary, ending "...".
func (r *Rules) cut(sig string) string {
	if len(sig) <= r.MaxLength {
		return sig
	}
	n := r.MaxLength - 3
	for n > 0 && !utf8Start(sig[n]) {
		n--
	}
	return sig[:n] + "..."
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

func pathBase(p string) string {
	p = strings.TrimRight(p, `/\`)
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// patterns are the normalisation's regular expressions, compiled on first use.
var patterns = sync.OnceValue(func() *normPatterns {
	return &normPatterns{
		rustHash:         regexp.MustCompile(`::h[0-9a-fA-F]{16}$`),
		spaceBefore:      regexp.MustCompile(` +([*&,])`),
		commaNoSp:        regexp.MustCompile(`,(\S)`),
		lambdaNum:        regexp.MustCompile(`::\$_\d+::`),
		qualsAfterParams: regexp.MustCompile(`\)(?:\s*(?:const|volatile|&&|&))+$`),
		gccSuffix:        regexp.MustCompile(`\.(?:cold|isra|constprop|part|lto_priv|localalias)(?:\.\d+)*`),
	}
})

type normPatterns struct {
	rustHash, spaceBefore, commaNoSp, lambdaNum, qualsAfterParams, gccSuffix *regexp.Regexp
}

// NormalizeFunction normalises a (demangled) function name as a frame of a
// signature: no parameters, <T> for template arguments, no clone suffixes,
// cv and ref qualifiers or Rust hashes, canonical spaces around * & and
// commas. rust adds Rust's rule: the ::h<hash> suffix goes.
func NormalizeFunction(fn string, rust bool) string {
	re := patterns()
	fn = strings.TrimSpace(fn)
	fn = dropClone(fn)
	fn = re.qualsAfterParams.ReplaceAllString(fn, ")")
	fn = strings.ReplaceAll(fn, "`anonymous namespace'", "(anonymous namespace)")
	fn = re.lambdaNum.ReplaceAllString(fn, "::$$::")
	fn = collapse(fn, '<', '>', "<T>")
	fn = collapse(fn, '(', ')', "")
	fn = dropQualifiers(fn)
	fn = dropReturnType(fn)
	fn = re.gccSuffix.ReplaceAllString(fn, "")
	if rust {
		fn = re.rustHash.ReplaceAllString(fn, "")
	}
	fn = re.spaceBefore.ReplaceAllString(fn, "$1")
	fn = re.commaNoSp.ReplaceAllString(fn, ", $1")
	return fn
}

// dropQualifiers removes a member function's trailing cv and ref
// qualifiers, left after its parameters were collapsed.
func dropQualifiers(fn string) string {
	for {
		t := fn
		for _, q := range []string{" const&", " const", " volatile", " &&", " &"} {
			t = strings.TrimSuffix(t, q)
		}
		if t == fn {
			return fn
		}
		fn = t
	}
}

// dropReturnType removes what precedes the name in "static void ns::f" or
// "class JSObject* f": the last space-separated word is the name. Names
// with an operator (operator new, operator bool) are left as they are.
func dropReturnType(fn string) string {
	if strings.Contains(fn, "operator") {
		return fn
	}
	const anon = "(anonymous namespace)"
	t := strings.ReplaceAll(fn, anon, "\x00")
	if i := strings.LastIndexByte(t, ' '); i >= 0 {
		t = t[i+1:]
	}
	return strings.ReplaceAll(t, "\x00", anon)
}

// dropClone removes GCC's " [clone .cold.12]" style suffixes.
func dropClone(fn string) string {
	for {
		i := strings.LastIndex(fn, " [clone ")
		if i < 0 || !strings.HasSuffix(fn, "]") {
			return fn
		}
		fn = strings.TrimSpace(fn[:i])
	}
}

// collapse replaces each outermost open...close group with repl. Groups
// that are part of an operator's name (operator(), operator<, operator<<,
// operator->) and "(anonymous namespace)" are kept.
func collapse(fn string, open, close byte, repl string) string {
	var b strings.Builder
	depth := 0
	for i := 0; i < len(fn); i++ {
		c := fn[i]
		if depth == 0 {
			if n := operatorAt(fn, i); n > 0 {
				b.WriteString(fn[i : i+n])
				i += n - 1
				continue
			}
			if c == '(' && open == '(' && strings.HasPrefix(fn[i:], "(anonymous namespace)") {
				b.WriteString("(anonymous namespace)")
				i += len("(anonymous namespace)") - 1
				continue
			}
		}
		switch c {
		case open:
			if depth == 0 {
				b.WriteString(repl)
			}
			depth++
			continue
		case close:
			if depth > 0 {
				depth--
				continue
			}
		}
		if depth == 0 {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// operatorAt returns the length of "operator<symbol>" starting at fn[i], or
// 0 when no operator name starts there.
func operatorAt(fn string, i int) int {
	const kw = "operator"
	if !strings.HasPrefix(fn[i:], kw) || (i > 0 && isIdent(fn[i-1])) {
		return 0
	}
	j := i + len(kw)
	if strings.HasPrefix(fn[j:], "()") || strings.HasPrefix(fn[j:], "[]") {
		return j + 2 - i
	}
	k := j
	for k < len(fn) && strings.IndexByte("<>=!+-*/%&|^~,", fn[k]) >= 0 {
		k++
	}
	if k == j {
		return 0 // operator new, operator bool, a conversion: ordinary words
	}
	return k - i
}

func isIdent(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
