package signature

import (
	"bufio"
	"bytes"
	_ "embed"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
)

//go:embed rules.txt
var defaultRules []byte

// Rules are the lists a Generator applies.
type Rules struct {
	MaxFrames  int // frames of the stack read at most
	MaxLength  int // bytes of a signature at most
	sentinel   *regexp.Regexp
	irrelevant *regexp.Regexp
	prefix     *regexp.Regexp
	trimModule *regexp.Regexp
	grouping   *Grouping // --grouping-rules (grouping.go); nil: none
	memo       *nameMemo // frame names already normalised; nil: none kept
}

// RuleError names the line of a rules file that does not parse.
type RuleError struct {
	File string
	Line int
	Err  error
}

func (e *RuleError) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err) }
func (e *RuleError) Unwrap() error { return e.Err }

// DefaultRules returns the embedded rules (rules.txt). Its lines are not
// compiled one by one, only joined per section: a batch's start paid
// twice the compiling for line numbers in errors that the embedded text,
// checked by TestDefaultRulesParse, never has (issue 29).
func DefaultRules() *Rules {
	r, err := parse(defaultRules, "rules.txt", false)
	if err != nil {
		panic("signature: embedded rules.txt: " + err.Error()) // a build error, tested
	}
	return r
}

// DefaultRulesText returns the text of the embedded rules, a starting point
// for a replacement file.
func DefaultRulesText() []byte { return bytes.Clone(defaultRules) }

// ReadRules reads a rules file.
func ReadRules(path string) (*Rules, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("signature rules: %w", err)
	}
	return Parse(data, path)
}

// maxRuleLines bounds a rules file, which is read whole into regexps.
const maxRuleLines = 100000

// Parse reads rules in the format of rules.txt; name is used in errors.
func Parse(data []byte, name string) (*Rules, error) { return parse(data, name, true) }

// parse is Parse; checkLines compiles each pattern alone, so that an error
// names its line and a pattern cannot reach into its neighbours once
// joined (`a)|(b`).
func parse(data []byte, name string, checkLines bool) (*Rules, error) {
	r := &Rules{MaxFrames: 40, MaxLength: 255, memo: &nameMemo{}}
	lists := map[string]*[]string{"sentinel": nil, "irrelevant": nil, "prefix": nil, "trim_module": nil}
	for k := range lists {
		lists[k] = new([]string)
	}
	section := ""
	err := scanRuleLines(data, name, func(line string) error {
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			section = line[1 : len(line)-1]
			if _, ok := lists[section]; !ok {
				return fmt.Errorf("unknown section [%s]", section)
			}
			return nil
		}
		if section == "" {
			return r.setting(line)
		}
		if checkLines {
			if _, err := regexp.Compile(line); err != nil {
				return err
			}
		}
		*lists[section] = append(*lists[section], line)
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.sentinel, err = anchored(*lists["sentinel"])
	if err == nil {
		r.irrelevant, err = anchored(*lists["irrelevant"])
	}
	if err == nil {
		r.prefix, err = anchored(*lists["prefix"])
	}
	if err == nil {
		r.trimModule, err = anchored(*lists["trim_module"])
	}
	if err != nil {
		return nil, &RuleError{name, 0, err}
	}
	return r, nil
}

// scanRuleLines calls do with each line of a rules file that is not blank
// or a # comment, trimmed; an error of do or of the file is a *RuleError
// naming the line.
func scanRuleLines(data []byte, name string, do func(line string) error) error {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		n++
		if n > maxRuleLines {
			return &RuleError{name, n, fmt.Errorf("more than %d lines", maxRuleLines)}
		}
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if err := do(line); err != nil {
			return &RuleError{name, n, err}
		}
	}
	if err := sc.Err(); err != nil {
		return &RuleError{name, n + 1, err}
	}
	return nil
}

func (r *Rules) setting(line string) error {
	key, val, _ := strings.Cut(line, " ")
	n, err := strconv.Atoi(strings.TrimSpace(val))
	if err != nil || n <= 0 || n > 1<<20 {
		return fmt.Errorf("%s: want a positive number, got %q", key, strings.TrimSpace(val))
	}
	switch key {
	case "max_frames":
		r.MaxFrames = n
	case "max_length":
		if n < 4 {
			return fmt.Errorf("max_length %d: want at least 4", n)
		}
		r.MaxLength = n
	default:
		return fmt.Errorf("unknown setting %q", key)
	}
	return nil
}

// anchored joins patterns into one regexp matched at the start of a name;
// nil when there are none.
func anchored(patterns []string) (*regexp.Regexp, error) {
	if len(patterns) == 0 {
		return nil, nil
	}
	return regexp.Compile(`^(?:` + strings.Join(patterns, `|`) + `)`)
}

func matches(re *regexp.Regexp, s string) bool { return re != nil && re.MatchString(s) }
