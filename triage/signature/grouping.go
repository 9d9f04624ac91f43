package signature

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/minidump-stackwalk/minidump-stackwalk/triage"
)

// Grouping is a file of stack-trace rules in the spirit of Sentry's
// (docs/batch.md, "Grouping rules"): each line is matchers followed by
// actions, applied from the first line to the last on every frame of the
// stack. The actions mark frames in-app or not (+app, -app), in or out of
// the signature (+group, -group), as prefix or sentinel frames, on the
// matching frame itself or on every frame above it (^, toward the crash)
// or below it (v, toward the thread's start); max-frames=N bounds the
// frames of the signature.
type Grouping struct {
	rules []groupRule
}

// groupRule is one line: every matcher must match a frame for the actions
// to apply.
type groupRule struct {
	matchers  []frameMatcher
	actions   []flagAction
	maxFrames int // -1: the rule sets no max-frames
}

type matchField int

const (
	fieldFunction matchField = iota // the frame's name as the signature shows it
	fieldModule                     // the module's code file base name
	fieldPath                       // the source file
	fieldApp                        // the in-app flag so far
	fieldFamily                     // the platform family: always native here
)

type frameMatcher struct {
	field  matchField
	negate bool
	re     *regexp.Regexp // the glob, for function, module and path
	yes    bool           // app:yes; family: the list holds native or all
}

type groupFlag int

const (
	flagApp groupFlag = iota
	flagGroup
	flagPrefix
	flagSentinel
)

// flagAction sets or clears a flag on the matching frame (scope 0), the
// frames above it ('^') or the frames below it ('v').
type flagAction struct {
	flag  groupFlag
	set   bool
	scope byte
}

// frameState is one frame as the signature reads it.
type frameState struct {
	name, module, path string
	app                int8 // 0: not said, 1: in-app, -1: not in-app
	group              bool // counts for the signature (not irrelevant)
	prefix, sentinel   bool
}

// Bounds of a grouping rules file, read whole and compiled into regexps.
const (
	maxGroupingBytes = 4 << 20
	maxMaxFrames     = 1 << 16
)

// ReadGrouping reads a grouping rules file.
func ReadGrouping(path string) (*Grouping, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("grouping rules: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxGroupingBytes+1))
	if err != nil {
		return nil, fmt.Errorf("grouping rules: %w", err)
	}
	if len(data) > maxGroupingBytes {
		return nil, fmt.Errorf("grouping rules: %s: larger than %d bytes", path, maxGroupingBytes)
	}
	return ParseGrouping(data, path)
}

// ParseGrouping reads grouping rules; name is used in errors, which are
// *RuleError with the line.
func ParseGrouping(data []byte, name string) (*Grouping, error) {
	g := &Grouping{}
	err := scanRuleLines(data, name, func(line string) error { // rules.go
		rule, err := parseGroupRule(line)
		g.rules = append(g.rules, rule)
		return err
	})
	if err != nil {
		return nil, err
	}
	return g, nil
}

func parseGroupRule(line string) (groupRule, error) {
	rule := groupRule{maxFrames: -1}
	tokens, err := splitRuleLine(line)
	if err != nil {
		return rule, err
	}
	for _, tok := range tokens {
		if tok.matcher {
			if len(rule.actions) > 0 || rule.maxFrames >= 0 {
				return rule, fmt.Errorf("matcher %q after an action: matchers come first", tok.key+":"+tok.text)
			}
			m, err := parseMatcher(tok.key, tok.text)
			if err != nil {
				return rule, err
			}
			rule.matchers = append(rule.matchers, m)
			continue
		}
		if err := rule.addAction(tok.text); err != nil {
			return rule, err
		}
	}
	switch {
	case len(rule.matchers) == 0:
		return rule, errors.New("no matcher (family:native matches every frame)")
	case len(rule.actions) == 0 && rule.maxFrames < 0:
		return rule, errors.New("no action (+app, -app, +group, -group, ^-group, v-group, +prefix, +sentinel, max-frames=N)")
	}
	return rule, nil
}

// ruleToken is a word of a rule line: a matcher (key:text, text unquoted)
// or an action.
type ruleToken struct {
	matcher   bool
	key, text string
}

// splitRuleLine splits a line at spaces; a matcher's value may be quoted
// ("operator new") with \" and \\ escapes.
func splitRuleLine(line string) ([]ruleToken, error) {
	var out []ruleToken
	for line = strings.TrimLeft(line, " \t"); line != ""; line = strings.TrimLeft(line, " \t") {
		if c := line[0]; c == '[' || c == '|' {
			return nil, errors.New("caller and callee matching ([ ... ] |) is not supported")
		}
		end := strings.IndexAny(line, " \t")
		if end < 0 {
			end = len(line)
		}
		word := line[:end]
		key, val, isMatcher := strings.Cut(word, ":")
		if !isMatcher {
			out = append(out, ruleToken{text: word})
			line = line[end:]
			continue
		}
		rest := line[len(key)+1:]
		if strings.HasPrefix(rest, "!") && strings.HasPrefix(rest[1:], `"`) {
			key, rest = "!"+key, rest[1:]
		}
		if strings.HasPrefix(rest, `"`) {
			v, n, err := unquote(rest)
			if err != nil {
				return nil, err
			}
			val, line = v, rest[n:]
			if line != "" && line[0] != ' ' && line[0] != '\t' {
				return nil, fmt.Errorf("%s: text after the closing quote", key)
			}
		} else {
			line = line[end:]
		}
		out = append(out, ruleToken{matcher: true, key: key, text: val})
	}
	return out, nil
}

// unquote reads a "quoted" value at the start of s; it returns the value
// and the bytes read.
func unquote(s string) (string, int, error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '"':
			return b.String(), i + 1, nil
		case '\\':
			if i+1 < len(s) {
				i++
			}
		}
		b.WriteByte(s[i])
	}
	return "", 0, errors.New("quoted value without its closing quote")
}

func parseMatcher(key, val string) (frameMatcher, error) {
	var m frameMatcher
	if strings.HasPrefix(key, "!") {
		m.negate, key = true, key[1:]
	}
	if strings.HasPrefix(val, "!") {
		m.negate, val = !m.negate, val[1:]
	}
	if val == "" {
		return m, fmt.Errorf("%s: empty value", key)
	}
	var err error
	switch strings.TrimPrefix(key, "stack.") {
	case "function":
		m.field = fieldFunction
		m.re, err = globRegexp(val, false)
	case "module", "package":
		m.field = fieldModule
		m.re, err = globRegexp(val, true)
	case "path", "abs_path":
		m.field = fieldPath
		m.re, err = globRegexp(val, true)
	case "app":
		m.field = fieldApp
		switch val {
		case "yes", "1", "true":
			m.yes = true
		case "no", "0", "false":
		default:
			return m, fmt.Errorf("app:%s: want yes or no", val)
		}
	case "family":
		m.field = fieldFamily
		for _, f := range strings.Split(val, ",") {
			switch f {
			case "native", "all":
				m.yes = true
			case "javascript", "other":
			default:
				return m, fmt.Errorf("family:%s: want native, javascript, other or all", f)
			}
		}
	default:
		return m, fmt.Errorf("unknown matcher %q: want function, module (package), path (abs_path), app or family", key)
	}
	return m, err
}

// globRegexp compiles a glob: ** is any text, * any text without a slash
// for paths (any text for functions), ? one character; the rest is
// literal. Paths and modules match case-insensitively, with \ read as /.
func globRegexp(glob string, path bool) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("(?s)")
	if path {
		b.WriteString("(?i)")
		glob = strings.ReplaceAll(glob, `\`, "/")
	}
	b.WriteString("^(?:")
	rs := []rune(glob)
	for i := 0; i < len(rs); i++ {
		switch {
		case rs[i] == '*' && i+1 < len(rs) && rs[i+1] == '*':
			b.WriteString(".*")
			i++
		case rs[i] == '*' && path:
			b.WriteString("[^/]*")
		case rs[i] == '*':
			b.WriteString(".*")
		case rs[i] == '?' && path:
			b.WriteString("[^/]")
		case rs[i] == '?':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(rs[i])))
		}
	}
	b.WriteString(")$")
	return regexp.Compile(b.String())
}

func (r *groupRule) addAction(word string) error {
	if v, ok := strings.CutPrefix(word, "max-frames="); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > maxMaxFrames {
			return fmt.Errorf("max-frames=%s: want 0 (no bound) to %d", v, maxMaxFrames)
		}
		r.maxFrames = n
		return nil
	}
	a := flagAction{}
	w := word
	if w != "" && (w[0] == '^' || w[0] == 'v') {
		a.scope, w = w[0], w[1:]
	}
	if w == "" || (w[0] != '+' && w[0] != '-') {
		return fmt.Errorf("unknown action %q: want [^|v]+FLAG, [^|v]-FLAG or max-frames=N", word)
	}
	a.set = w[0] == '+'
	switch w[1:] {
	case "app":
		a.flag = flagApp
	case "group":
		a.flag = flagGroup
	case "prefix":
		a.flag = flagPrefix
	case "sentinel":
		a.flag = flagSentinel
	default:
		return fmt.Errorf("unknown flag in %q: want app, group, prefix or sentinel", word)
	}
	r.actions = append(r.actions, a)
	return nil
}

// apply runs the rules over the frames, first rule first; it returns the
// max-frames in force (0: none).
func (g *Grouping) apply(st []frameState) int {
	if g == nil {
		return 0
	}
	limit := 0
	for ri := range g.rules {
		rule := &g.rules[ri]
		for i := range st {
			if !rule.matches(&st[i]) {
				continue
			}
			if rule.maxFrames >= 0 {
				limit = rule.maxFrames
			}
			for _, a := range rule.actions {
				lo, hi := i, i+1
				switch a.scope {
				case '^':
					lo, hi = 0, i
				case 'v':
					lo, hi = i+1, len(st)
				}
				for j := lo; j < hi; j++ {
					st[j].set(a)
				}
			}
		}
	}
	return limit
}

func (r *groupRule) matches(s *frameState) bool {
	for i := range r.matchers {
		if !r.matchers[i].matches(s) {
			return false
		}
	}
	return true
}

func (m *frameMatcher) matches(s *frameState) bool {
	var ok bool
	switch m.field {
	case fieldFunction:
		ok = m.re.MatchString(s.name)
	case fieldModule:
		ok = s.module != "" && matchPath(m.re, s.module)
	case fieldPath:
		ok = s.path != "" && matchPath(m.re, s.path)
	case fieldApp:
		ok = (s.app == 1) == m.yes
	case fieldFamily:
		ok = m.yes
	}
	return ok != m.negate
}

// matchPath matches a path with / separators; a relative one also as if
// under any directory, so that **/name matches name (Sentry's rule).
func matchPath(re *regexp.Regexp, p string) bool {
	p = strings.ReplaceAll(p, `\`, "/")
	if re.MatchString(p) {
		return true
	}
	abs := strings.HasPrefix(p, "/") || len(p) > 2 && p[1] == ':' && p[2] == '/'
	return !abs && re.MatchString("/"+p)
}

func (s *frameState) set(a flagAction) {
	switch a.flag {
	case flagApp:
		s.app = -1
		if a.set {
			s.app = 1
		}
	case flagGroup:
		s.group = a.set
	case flagPrefix:
		s.prefix = a.set
	case flagSentinel:
		s.sentinel = a.set
	}
}

// frameStates names the frames and sets their flags from the lists of r.
func (r *Rules) frameStates(frames []triage.Frame) []frameState {
	st := make([]frameState, len(frames))
	for i := range frames {
		f := &frames[i]
		if n, ok := r.memo.get(f); ok {
			st[i] = n
		} else {
			n := r.frameName(f)
			st[i] = frameState{name: n, group: !matches(r.irrelevant, n), prefix: matches(r.prefix, n), sentinel: matches(r.sentinel, n)}
			r.memo.put(f, st[i])
		}
		st[i].module, st[i].path = f.Module, f.File
	}
	return st
}

// WithGrouping returns a copy of r that applies g (nil: none) after its
// own lists.
func (r *Rules) WithGrouping(g *Grouping) *Rules {
	c := *r
	c.grouping = g
	return &c
}
