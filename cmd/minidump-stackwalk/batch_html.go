package main

// What batch tells the HTML report beyond the summary: the run's facts
// (summary.Run) and the links from the page to each dump's --output-dir
// report.

import (
	"net/url"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/minidump-stackwalk/minidump-stackwalk/triage/htmlreport"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage/summary"
)

// newRun describes a run with the given command line and inputs.
func newRun(commandLine, inputs, symbolPaths []string, outputDir string) *summary.Run {
	return &summary.Run{
		Date:        time.Now().UTC().Format(time.RFC3339),
		Version:     versionString(debug.ReadBuildInfo()),
		Args:        redactURLs(commandLine),
		Inputs:      append([]string{}, inputs...),
		SymbolPaths: redactURLs(symbolPaths),
		OutputDir:   outputDir,
	}
}

// commandLine lists the flags set on fs, one "--name=value" each (a
// repeated flag once per value), then args.
func commandLine(fs *pflag.FlagSet, args []string) []string {
	var out []string
	fs.Visit(func(f *pflag.Flag) {
		var values []string
		switch v := f.Value.(type) {
		case *stringList:
			values = *v.values
		case pflag.SliceValue:
			values = v.GetSlice()
		default:
			out = append(out, "--"+f.Name+"="+f.Value.String())
			return
		}
		for _, v := range values {
			out = append(out, "--"+f.Name+"="+v)
		}
	})
	return append(out, args...)
}

// redactURLs removes the user name and password of the URLs in ss (also
// after a flag's "="): a report is made to be shared.
func redactURLs(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		prefix, rest := "", s
		if strings.HasPrefix(s, "--") {
			if name, v, ok := strings.Cut(s, "="); ok {
				prefix, rest = name+"=", v
			}
		}
		if u, err := url.Parse(rest); err == nil && u.User != nil && u.Host != "" {
			u.User = nil
			rest = u.String()
		}
		out[i] = prefix + rest
	}
	return out
}

// reportLinker returns the links from the page at htmlFile to the reports
// batch wrote into outputDir (reportName), relative so that the two can be
// published together; nil when there are none or no relative path.
func reportLinker(htmlFile, outputDir string) func(string) string {
	if htmlFile == "" || outputDir == "" {
		return nil
	}
	pageDir, err1 := filepath.Abs(filepath.Dir(htmlFile))
	dir, err2 := filepath.Abs(outputDir)
	if err1 != nil || err2 != nil {
		return nil
	}
	rel, err := filepath.Rel(pageDir, dir)
	if err != nil {
		return nil
	}
	// "./" before a first segment that is not "..", so that no directory
	// name reads as a URL scheme ("c:").
	base := "./"
	if rel != "." {
		segs := strings.Split(filepath.ToSlash(rel), "/")
		if segs[0] == ".." {
			base = ""
		}
		for _, seg := range segs {
			base += url.PathEscape(seg) + "/"
		}
	}
	return func(path string) string { return base + url.PathEscape(reportName(path)) }
}

// htmlOptions are the HTML report's options for a run.
func htmlOptions(htmlFile, outputDir string) htmlreport.Options {
	return htmlreport.Options{ReportLink: reportLinker(htmlFile, outputDir)}
}
