// Package htmlreport writes a batch summary as one self-contained HTML page
// that works offline (styles and script inline, nothing fetched): the run
// (date, version, command line, inputs, symbol paths), totals, breakdowns
// of the dumps by OS, CPU, product and module whose values filter the
// table, a search box, and the table of signatures, drawn a page at a time
// by the page's script from a JSON data block; a click on a group expands
// its stacks (with source file and line), crash reasons, modules, systems
// and example dumps, linked to their --output-dir reports (Options). Failed
// inputs are listed below the table.
//
// Every string is escaped as the text outputs escape it (textsafe) and
// reaches the page as text, never markup; the page's Content-Security-Policy
// allows its one script by hash and nothing else. The page is a
// text/template whose every output action ends in an escaper chosen as
// html/template would choose it for that place (escape.go), so that the
// command, which links this package, links no html/template.
package htmlreport
