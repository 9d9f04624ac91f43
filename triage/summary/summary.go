package summary

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/textsafe"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage/depot"
)

// FormatVersion is the version of the summary's JSON format.
const FormatVersion = 1

// Default bounds of the example lists.
const (
	DefaultExamples = 10  // example dumps per group
	DefaultFailures = 100 // failed inputs listed
)

// Summary is the JSON summary of a run (--summary FILE).
type Summary struct {
	Format int `json:"format"`
	Inputs int `json:"inputs"` // results added
	OK     int `json:"ok"`     // results with status ok
	// Statuses counts the results by status.
	Statuses map[string]int `json:"statuses"`
	// Failures lists failed inputs, the smallest paths first, at most
	// DefaultFailures of them.
	Failures []Failure `json:"failures"`
	// Groups are the signatures, the most frequent first.
	Groups []Group `json:"groups"`
	// Stacks holds the frames of every stack_id the groups name.
	Stacks map[string][]triage.Frame `json:"stacks"`
	// Skipped counts the paths a directory scan passed over, by reason
	// ("not a dump", "unreadable directory", ...); omitted when none.
	Skipped map[string]int `json:"skipped,omitempty"`
	// Run describes the run that made the summary; nil when unknown.
	Run *Run `json:"run,omitempty"`
}

// Run is what a report says of the run behind it.
type Run struct {
	Date    string   `json:"date"`    // when the run ended, RFC 3339 in UTC
	Version string   `json:"version"` // the tool's version
	Args    []string `json:"args"`    // the command line, user names and passwords of URLs removed
	// Inputs are the PATHs given (for merge: the summary files).
	Inputs []string `json:"inputs"`
	// SymbolPaths are the symbol directories, files and server URLs.
	SymbolPaths []string `json:"symbol_paths,omitempty"`
	// OutputDir is --output-dir, where each dump's JSON report went.
	OutputDir string `json:"output_dir,omitempty"`
	// Parts are the runs a merged summary combines.
	Parts []Run `json:"parts,omitempty"`
}

// Failure is one input that was not processed in full.
type Failure struct {
	Path string `json:"path"`
	// PathBase64 is Path's bytes in base64 when they are not valid UTF-8
	// (triage.RawPath); Read restores Path from it.
	PathBase64 string `json:"path_base64,omitempty"`
	Status     string `json:"status"`
	Error      string `json:"error"`
}

// Group is the results sharing one signature.
type Group struct {
	Signature string `json:"signature"`
	Count     int    `json:"count"`
	// Stacks are the group's distinct stacks, the most frequent first; the
	// first is the group's representative stack.
	Stacks []StackCount `json:"stacks"`
	// Examples are paths of dumps of the group, the smallest first.
	Examples []string `json:"examples"`
	// ExamplesBase64, present when an example path is not valid UTF-8,
	// holds for each example its bytes in base64 (triage.RawPath), or ""
	// for a valid one; Read restores Examples from it.
	ExamplesBase64 []string      `json:"examples_base64,omitempty"`
	CrashReasons   []NameCount   `json:"crash_reasons"`
	Modules        []ModuleCount `json:"modules"`
	// Configs count the group's dumps by system and product; omitted by
	// summaries older than the field.
	Configs []ConfigCount `json:"configs,omitempty"`
}

// ConfigCount is how many dumps of a group came from one operating system,
// CPU and product version.
type ConfigCount struct {
	Config
	Count int `json:"count"`
}

// Config is a dump's system and product (triage.Result's fields).
type Config struct {
	OS             string `json:"os,omitempty"`
	CPU            string `json:"cpu,omitempty"`
	Product        string `json:"product,omitempty"`
	ProductVersion string `json:"product_version,omitempty"`
}

// StackCount is a stack of a group and how many of its dumps have it.
type StackCount struct {
	ID    string `json:"stack_id"`
	Count int    `json:"count"`
}

// NameCount is a value and its count.
type NameCount struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

// ModuleCount is a module version and how many dumps of a group have it in
// their crashing stack.
type ModuleCount struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	Count   int    `json:"count"`
}

// Builder accumulates results. It is safe for concurrent use.
type Builder struct {
	mu          sync.Mutex
	examples    int
	maxFailures int
	depot       *depot.Depot
	inputs, ok  int
	statuses    map[string]int
	skipped     map[string]int
	failures    []Failure // sorted by path
	groups      map[string]*group
}

type moduleKey struct{ name, version string }

type group struct {
	count    int
	stacks   map[string]int
	examples []string // sorted
	reasons  map[string]int
	modules  map[moduleKey]int
	configs  map[Config]int
}

// NewBuilder returns a builder keeping up to examples example dumps per group
// (DefaultExamples when <= 0).
func NewBuilder(examples int) *Builder {
	if examples <= 0 {
		examples = DefaultExamples
	}
	return &Builder{examples: examples, maxFailures: DefaultFailures, depot: depot.New(),
		statuses: map[string]int{}, skipped: map[string]int{}, groups: map[string]*group{}}
}

// AddSkipped counts n paths passed over for reason.
func (b *Builder) AddSkipped(reason string, n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.skipped[reason] += n
}

// Add counts one result. Results with a signature join its group, whatever
// their status (a partial dump may have a stack); the stack is stored in
// the depot under r.StackID (computed when empty).
func (b *Builder) Add(r *triage.Result) {
	var id string
	if r.Signature != "" {
		id = b.depot.Put(r.Frames)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.inputs++
	b.statuses[r.Status]++
	if r.OK() {
		b.ok++
	} else {
		b.failures = insertBounded(b.failures, Failure{Path: r.Path, Status: r.Status, Error: r.Error}, b.maxFailures,
			func(a, c Failure) int { return cmp.Compare(a.Path, c.Path) })
	}
	if r.Signature == "" {
		return
	}
	g := b.group(r.Signature)
	g.count++
	g.stacks[id]++
	g.examples = insertBounded(g.examples, r.Path, b.examples, cmp.Compare[string])
	if r.CrashReason != "" {
		g.reasons[r.CrashReason]++
	}
	g.configs[Config{r.OS, r.CPU, r.Product, r.ProductVersion}]++
	seen := map[moduleKey]bool{}
	for _, m := range r.Modules {
		k := moduleKey{m.Name, m.Version}
		if !seen[k] {
			seen[k] = true
			g.modules[k]++
		}
	}
}

func (b *Builder) group(sig string) *group {
	g := b.groups[sig]
	if g == nil {
		g = &group{stacks: map[string]int{}, reasons: map[string]int{}, modules: map[moduleKey]int{}, configs: map[Config]int{}}
		b.groups[sig] = g
	}
	return g
}

// insertBounded inserts v into the sorted list s, keeping its n smallest.
func insertBounded[T any](s []T, v T, n int, compare func(a, b T) int) []T {
	i, _ := slices.BinarySearchFunc(s, v, compare)
	if i >= n {
		return s
	}
	s = slices.Insert(s, i, v)
	if len(s) > n {
		s = s[:n]
	}
	return s
}

// Summary returns the summary of everything added so far.
func (b *Builder) Summary() *Summary {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := &Summary{Format: FormatVersion, Inputs: b.inputs, OK: b.ok, Statuses: map[string]int{},
		Failures: slices.Clone(b.failures), Stacks: map[string][]triage.Frame{}}
	for k, v := range b.statuses {
		s.Statuses[k] = v
	}
	if len(b.skipped) > 0 {
		s.Skipped = maps.Clone(b.skipped)
	}
	if s.Failures == nil {
		s.Failures = []Failure{}
	}
	for i := range s.Failures {
		s.Failures[i].PathBase64 = triage.RawPath(s.Failures[i].Path)
	}
	for sig, g := range b.groups {
		out := Group{Signature: sig, Count: g.count, Examples: slices.Clone(g.examples), ExamplesBase64: rawPaths(g.examples)}
		for id, n := range g.stacks {
			out.Stacks = append(out.Stacks, StackCount{id, n})
			if f, ok := b.depot.Get(id); ok {
				s.Stacks[id] = f
			}
		}
		slices.SortFunc(out.Stacks, func(a, c StackCount) int {
			return cmp.Or(cmp.Compare(c.Count, a.Count), cmp.Compare(a.ID, c.ID))
		})
		out.CrashReasons = nameCounts(g.reasons)
		for k, n := range g.modules {
			out.Modules = append(out.Modules, ModuleCount{k.name, k.version, n})
		}
		slices.SortFunc(out.Modules, func(a, c ModuleCount) int {
			return cmp.Or(cmp.Compare(c.Count, a.Count), cmp.Compare(a.Name, c.Name), cmp.Compare(a.Version, c.Version))
		})
		if out.Modules == nil {
			out.Modules = []ModuleCount{}
		}
		out.Configs = configCounts(g.configs)
		s.Groups = append(s.Groups, out)
	}
	slices.SortFunc(s.Groups, func(a, c Group) int {
		return cmp.Or(cmp.Compare(c.Count, a.Count), cmp.Compare(a.Signature, c.Signature))
	})
	if s.Groups == nil {
		s.Groups = []Group{}
	}
	return s
}

// configCounts lists m, the most frequent first, then by its fields.
func configCounts(m map[Config]int) []ConfigCount {
	var out []ConfigCount
	for c, n := range m {
		out = append(out, ConfigCount{c, n})
	}
	slices.SortFunc(out, func(a, c ConfigCount) int {
		return cmp.Or(cmp.Compare(c.Count, a.Count), cmp.Compare(a.OS, c.OS), cmp.Compare(a.CPU, c.CPU),
			cmp.Compare(a.Product, c.Product), cmp.Compare(a.ProductVersion, c.ProductVersion))
	})
	return out
}

func nameCounts(m map[string]int) []NameCount {
	out := []NameCount{}
	for k, n := range m {
		out = append(out, NameCount{k, n})
	}
	slices.SortFunc(out, func(a, c NameCount) int {
		return cmp.Or(cmp.Compare(c.Count, a.Count), cmp.Compare(a.Name, c.Name))
	})
	return out
}

// Merge returns the summary of the union of the runs summarised by parts,
// with up to examples example dumps per group. It refuses (with a
// *PartError naming the part) a part that is not a summary batch could
// have written (see validate), a part listing a path another part lists
// (the same shard twice), and counts that would overflow.
func Merge(examples int, parts ...*Summary) (*Summary, error) {
	b := NewBuilder(examples)
	owner := map[string]int{}
	for i, p := range parts {
		if err := p.validate(); err != nil {
			return nil, &PartError{i, err}
		}
		if err := checkDisjoint(owner, i, p); err != nil {
			return nil, &PartError{i, err}
		}
		if err := b.mergePart(p); err != nil {
			return nil, &PartError{i, err}
		}
	}
	s := b.Summary()
	for _, p := range parts {
		if p.Run != nil {
			if s.Run == nil {
				s.Run = &Run{}
			}
			s.Run.Parts = append(s.Run.Parts, *p.Run)
		}
	}
	return s, nil
}

// mergePart adds a validated summary to b.
func (b *Builder) mergePart(p *Summary) error {
	if err := addCount(&b.inputs, p.Inputs, "inputs"); err != nil {
		return err
	}
	b.ok += p.OK // at most inputs
	for k, v := range p.Statuses {
		b.statuses[k] += v // their sum is inputs
	}
	for k, v := range p.Skipped {
		n := b.skipped[k]
		if err := addCount(&n, v, "skipped"); err != nil {
			return err
		}
		b.skipped[k] = n
	}
	for _, f := range p.Failures {
		b.failures = insertBounded(b.failures, f, b.maxFailures, func(a, c Failure) int { return cmp.Compare(a.Path, c.Path) })
	}
	for _, pg := range p.Groups {
		g := b.group(pg.Signature)
		g.count += pg.Count // the groups' counts add up to at most inputs
		for _, st := range pg.Stacks {
			frames, ok := p.Stacks[st.ID]
			if !ok {
				return fmt.Errorf("group %q names stack %s, which it does not hold", pg.Signature, st.ID)
			}
			b.depot.PutWithID(st.ID, frames) // the same id, the same frames: validate hashed them
			g.stacks[st.ID] += st.Count
		}
		for _, e := range pg.Examples {
			g.examples = insertBounded(g.examples, e, b.examples, cmp.Compare[string])
		}
		for _, r := range pg.CrashReasons {
			g.reasons[r.Name] += r.Count
		}
		for _, m := range pg.Modules {
			g.modules[moduleKey{m.Name, m.Version}] += m.Count
		}
		for _, c := range pg.Configs {
			g.configs[c.Config] += c.Count
		}
	}
	return nil
}

// Read decodes a summary.
func Read(r io.Reader) (*Summary, error) {
	var s Summary
	dec := json.NewDecoder(r)
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("summary: %w", err)
	}
	// One document: a second one after it (two files concatenated) would
	// otherwise be dropped without a word.
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("summary: more data after the summary's JSON object, at offset %d", dec.InputOffset())
	}
	if err := s.validate(); err != nil {
		return nil, fmt.Errorf("summary: %w", err)
	}
	if err := s.restoreRawPaths(); err != nil {
		return nil, fmt.Errorf("summary: %w", err)
	}
	return &s, nil
}

// Write encodes s as indented JSON.
func Write(w io.Writer, s *Summary) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// WriteTable prints the top signatures of s with their counts and shares,
// and a line of totals.
func WriteTable(w io.Writer, s *Summary, top int) error {
	grouped := 0
	for _, g := range s.Groups {
		grouped += g.Count
	}
	if len(s.Groups) > 0 {
		fmt.Fprintf(w, "%7s %6s  %s\n", "count", "share", "signature")
	}
	for i, g := range s.Groups {
		if i == top {
			fmt.Fprintf(w, "%7s %6s  (%d more signatures)\n", "", "", len(s.Groups)-top)
			break
		}
		fmt.Fprintf(w, "%7d %5.1f%%  %s\n", g.Count, 100*float64(g.Count)/float64(max(grouped, 1)), textsafe.Escape(g.Signature))
	}
	var failed []string
	for _, k := range slices.Sorted(maps.Keys(s.Statuses)) {
		if k != triage.StatusOK {
			failed = append(failed, fmt.Sprintf("%s %d", k, s.Statuses[k]))
		}
	}
	fmt.Fprintf(w, "%d inputs: %d ok, %d not processed in full", s.Inputs, s.OK, s.Inputs-s.OK)
	if len(failed) > 0 {
		fmt.Fprintf(w, " (%s)", strings.Join(failed, ", "))
	}
	fmt.Fprintf(w, "; %d signatures, %d distinct stacks", len(s.Groups), len(s.Stacks))
	if len(s.Skipped) > 0 {
		var skipped []string
		for _, k := range slices.Sorted(maps.Keys(s.Skipped)) {
			skipped = append(skipped, fmt.Sprintf("%d %s", s.Skipped[k], textsafe.Escape(k)))
		}
		fmt.Fprintf(w, "; skipped: %s", strings.Join(skipped, ", "))
	}
	_, err := fmt.Fprintln(w)
	return err
}

// rawPaths is the ExamplesBase64 of paths: nil when every path is UTF-8.
func rawPaths(paths []string) []string {
	var out []string
	for i, p := range paths {
		if raw := triage.RawPath(p); raw != "" {
			if out == nil {
				out = make([]string, len(paths))
			}
			out[i] = raw
		}
	}
	return out
}

// restoreRawPaths puts back the bytes of the paths JSON could not carry.
func (s *Summary) restoreRawPaths() error {
	for i := range s.Failures {
		f := &s.Failures[i]
		p, err := triage.PathFromRaw(f.Path, f.PathBase64)
		if err != nil {
			return fmt.Errorf("failure %d: %w", i, err)
		}
		f.Path = p
	}
	for i := range s.Groups {
		g := &s.Groups[i]
		if g.ExamplesBase64 == nil {
			continue
		}
		if len(g.ExamplesBase64) != len(g.Examples) {
			return fmt.Errorf("group %q: %d examples_base64 for %d examples", g.Signature, len(g.ExamplesBase64), len(g.Examples))
		}
		for j, raw := range g.ExamplesBase64 {
			p, err := triage.PathFromRaw(g.Examples[j], raw)
			if err != nil {
				return fmt.Errorf("group %q: %w", g.Signature, err)
			}
			g.Examples[j] = p
		}
	}
	return nil
}
