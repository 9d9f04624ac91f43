// Package htmlreport writes a batch summary as one self-contained HTML page
// (styles and script inline, no network fetch): a sortable table of the
// signatures with their counts and a bar of their share; a click on a group
// expands its representative stack (with source file and line), its other
// stacks, crash reasons, modules and example dumps. Failed inputs are
// listed below the table.
package htmlreport
