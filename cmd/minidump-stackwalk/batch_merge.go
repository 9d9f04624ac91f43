package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/textsafe"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage/htmlreport"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage/summary"
)

// newMergeCommand builds "batch merge SUMMARY...": the summary (and HTML
// report) of the union of shard runs.
func newMergeCommand(stdout, stderr io.Writer, status *int) *cobra.Command {
	var out, html string
	var examples, top int
	cmd := &cobra.Command{
		Use:   "merge [flags] SUMMARY...",
		Short: "Combine the --summary files of shard runs into one summary and HTML report",
		Long: `merge reads the JSON summaries written by batch --summary (for example one per
--shard) and writes the summary one batch run over all their inputs would have
written (counts added, the smallest example paths kept), to --summary FILE or
stdout, and its HTML report to --html FILE. The table of top signatures is
printed on stderr.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError{errors.New("batch merge: no SUMMARY given")}
			}
			if examples < 1 {
				return usageError{fmt.Errorf("--examples %d: want at least 1", examples)}
			}
			*status = runMerge(args, commandLine(cmd.Flags(), args), out, html, examples, top, stdout, stderr)
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&out, "summary", "", "write the merged summary to `FILE` instead of stdout")
	fs.StringVar(&html, "html", "", "write the merged HTML report to `FILE`")
	fs.IntVar(&examples, "examples", summary.DefaultExamples, "example dumps kept per signature")
	fs.IntVar(&top, "top", 20, "signatures in the table printed on stderr")
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	return cmd
}

func runMerge(paths, cmdLine []string, out, html string, examples, top int, stdout, stderr io.Writer) int {
	var parts []*summary.Summary
	var files []os.FileInfo
	for _, p := range paths {
		s, info, err := readSummaryFile(p)
		if err == nil {
			for i, f := range files {
				if os.SameFile(f, info) {
					err = fmt.Errorf("the same file as %s: each shard's summary is merged once", textsafe.Escape(paths[i]))
				}
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "minidump-stackwalk: batch merge: %s: %s\n", textsafe.Escape(p), textsafe.Escape(err.Error()))
			return exitDump
		}
		parts, files = append(parts, s), append(files, info)
	}
	merged, err := summary.Merge(examples, parts...)
	if err != nil {
		var pe *summary.PartError
		if errors.As(err, &pe) {
			err = fmt.Errorf("%s: %w", paths[pe.Part], pe.Err)
		}
		fmt.Fprintf(stderr, "minidump-stackwalk: batch merge: %s\n", textsafe.Escape(err.Error()))
		return exitDump
	}
	run := newRun(append([]string{"merge"}, cmdLine...), paths, nil, "") // batch_html.go
	if merged.Run != nil {
		run.Parts = merged.Run.Parts
	}
	merged.Run = run
	if out == "" {
		if err := summary.Write(stdout, merged); err != nil {
			logf(stderr, "minidump-stackwalk: batch merge: %v\n", err)
			return exitDump
		}
	}
	// The parts' reports are in their own --output-dir: no links.
	if err := writeSummaryFiles(merged, out, html, htmlreport.Options{}); err != nil {
		logf(stderr, "minidump-stackwalk: batch merge: %v\n", err)
		return exitDump
	}
	summary.WriteTable(stderr, merged, top)
	return exitOK
}

// maxSummaryBytes bounds a summary file read by merge.
const maxSummaryBytes = 1 << 30

// readSummaryFile reads and checks a summary; the file's info tells the
// same file given twice.
func readSummaryFile(path string) (*summary.Summary, os.FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	s, err := summary.Read(io.LimitReader(f, maxSummaryBytes))
	return s, info, err
}
