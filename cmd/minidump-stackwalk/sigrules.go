package main

// --signature-rules and --grouping-rules, read the same way by batch and by
// the single-dump mode's CI formats (triage/signature; docs/batch.md).

import (
	"fmt"

	"github.com/minidump-stackwalk/minidump-stackwalk/triage/signature"
)

// groupingRulesUsage is the help of --grouping-rules.
const groupingRulesUsage = "apply the grouping rules of `FILE` (Sentry-style stack-trace rules: +app, -group, ^-group,\n" +
	"v-group, ...) to the signatures; docs/batch.md"

// loadSignatureRules returns the built-in signature rules, or those of
// rulesFile, with the grouping rules of groupingFile on top ("": none).
// An error is a usage error.
func loadSignatureRules(rulesFile, groupingFile string) (*signature.Rules, error) {
	rules := signature.DefaultRules()
	if rulesFile != "" {
		r, err := signature.ReadRules(rulesFile)
		if err != nil {
			return nil, fmt.Errorf("--signature-rules: %w", err)
		}
		rules = r
	}
	if groupingFile != "" {
		g, err := signature.ReadGrouping(groupingFile)
		if err != nil {
			return nil, fmt.Errorf("--grouping-rules: %w", err)
		}
		rules = rules.WithGrouping(g)
	}
	return rules, nil
}
