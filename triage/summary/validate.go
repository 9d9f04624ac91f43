package summary

import (
	"errors"
	"fmt"
	"math"

	"github.com/minidump-stackwalk/minidump-stackwalk/triage"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage/depot"
)

// PartError is a Merge error that lies in one of the summaries merged.
type PartError struct {
	Part int // index in Merge's parts
	Err  error
}

func (e *PartError) Error() string { return fmt.Sprintf("summary %d: %v", e.Part+1, e.Err) }
func (e *PartError) Unwrap() error { return e.Err }

// maxCount bounds every count of a summary, so that the counts of any
// number of merged summaries cannot overflow an int (on 64-bit machines
// 2^53: far beyond any run, and exact in JSON readers that use doubles;
// on 32-bit ones an int stops first, and addCount refuses that too).
const maxCount = 1 << 53

// validate checks that s is a summary batch could have written: counts
// within bounds and adding up, each stack's frames hashing to its id, no
// group naming a stack twice. Merge refuses anything else, so that a
// truncated, edited or corrupt shard never yields a wrong merged report.
func (s *Summary) validate() error {
	if s.Format != FormatVersion {
		return fmt.Errorf("format %d, want %d", s.Format, FormatVersion)
	}
	if err := checkCount("inputs", s.Inputs); err != nil {
		return err
	}
	if err := checkCount("ok", s.OK); err != nil {
		return err
	}
	sum := 0
	for k, n := range s.Statuses {
		if err := checkCount(fmt.Sprintf("statuses[%q]", k), n); err != nil {
			return err
		}
		sum += n
	}
	if sum != s.Inputs || s.Statuses[triage.StatusOK] != s.OK {
		return fmt.Errorf("statuses add up to %d (ok %d), but inputs is %d (ok %d)", sum, s.Statuses[triage.StatusOK], s.Inputs, s.OK)
	}
	for k, n := range s.Skipped {
		if err := checkCount(fmt.Sprintf("skipped[%q]", k), n); err != nil {
			return err
		}
	}
	for id, frames := range s.Stacks {
		if got := depot.ID(frames); got != id {
			return fmt.Errorf("stack %s: its frames are those of stack %s", id, got)
		}
	}
	grouped := 0
	for i := range s.Groups {
		if err := s.Groups[i].validate(); err != nil {
			return fmt.Errorf("group %q: %w", s.Groups[i].Signature, err)
		}
		grouped += s.Groups[i].Count
	}
	if grouped > s.Inputs {
		return fmt.Errorf("groups count %d dumps, but inputs is %d", grouped, s.Inputs)
	}
	return nil
}

func (g *Group) validate() error {
	if err := checkCount("count", g.Count); err != nil {
		return err
	}
	stacks, seen := 0, map[string]bool{}
	for _, st := range g.Stacks {
		if seen[st.ID] {
			return fmt.Errorf("stack %s listed twice", st.ID)
		}
		seen[st.ID] = true
		if err := checkCount("stack "+st.ID, st.Count); err != nil {
			return err
		}
		stacks += st.Count
	}
	if stacks != g.Count {
		return fmt.Errorf("its stacks count %d dumps, but its count is %d", stacks, g.Count)
	}
	for _, r := range g.CrashReasons {
		if r.Count < 0 || r.Count > g.Count {
			return fmt.Errorf("crash reason %q: count %d out of 0..%d", r.Name, r.Count, g.Count)
		}
	}
	for _, m := range g.Modules {
		if m.Count < 0 || m.Count > g.Count {
			return fmt.Errorf("module %q: count %d out of 0..%d", m.Name, m.Count, g.Count)
		}
	}
	configs := 0
	for _, c := range g.Configs {
		if c.Count < 0 || c.Count > g.Count-configs {
			return fmt.Errorf("configs count more dumps than the group's %d", g.Count)
		}
		configs += c.Count
	}
	return nil
}

func checkCount(what string, n int) error {
	if n < 0 || int64(n) > maxCount {
		return fmt.Errorf("%s: count %d out of 0..2^53", what, n)
	}
	return nil
}

// errSameInput is a path listed by two summaries merged: the same shard
// given twice, or shards of overlapping runs.
var errSameInput = errors.New("was already counted by another summary (the same shard given twice?)")

// checkDisjoint records the paths a part lists (examples and failures) in
// owner, and fails when another part listed one of them: each input
// belongs to one shard.
func checkDisjoint(owner map[string]int, part int, p *Summary) error {
	mine := map[string]bool{}
	note := func(path string) error {
		if mine[path] {
			return nil
		}
		mine[path] = true
		if prev, ok := owner[path]; ok {
			return fmt.Errorf("%q, listed by summary %d, %w", path, prev+1, errSameInput)
		}
		owner[path] = part
		return nil
	}
	for _, f := range p.Failures {
		if err := note(f.Path); err != nil {
			return err
		}
	}
	for _, g := range p.Groups {
		for _, e := range g.Examples {
			if err := note(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// addCount adds n to *total, refusing a sum past maxCount.
func addCount(total *int, n int, what string) error {
	if int64(*total) > maxCount-int64(n) || n > math.MaxInt-*total {
		return fmt.Errorf("%s: the merged count passes 2^53", what)
	}
	*total += n
	return nil
}
