package main

import (
	"context"
	"log/slog"

	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
)

// logWalks logs, at --verbose=trace, every step of every thread's walk: for
// each frame the methods tried and the candidates rejected, then the rule
// that found it; after the last frame, why the walk ended. The steps are
// recorded only when processor.Options.Trace was set (options.trace).
func logWalks(log *slog.Logger, st *processor.ProcessState) {
	ctx := context.Background()
	if st == nil || !log.Enabled(ctx, levelTrace) {
		return
	}
	for _, th := range st.Threads {
		if !th.Walked() {
			continue
		}
		for i, f := range th.Frames {
			for _, s := range f.Steps {
				logStep(ctx, log, th.Index, i, s)
			}
			if f.Rule == processor.RuleInline {
				log.Log(ctx, levelTrace, "walk", "thread", th.Index, "frame", i, "rule", f.Rule.String(),
					"outcome", "found", "note", "inlined call in "+f.Function)
			}
		}
		for _, s := range th.WalkEnd {
			logStep(ctx, log, th.Index, len(th.Frames), s)
		}
		log.Log(ctx, levelTrace, "walk ended", "thread", th.Index, "frames", len(th.Frames))
	}
}

func logStep(ctx context.Context, log *slog.Logger, thread, frame int, s processor.Step) {
	outcome := "rejected"
	if s.Taken {
		outcome = "found"
	}
	log.Log(ctx, levelTrace, "walk", "thread", thread, "frame", frame, "rule", s.Rule.String(), "outcome", outcome, "note", s.Note)
}
