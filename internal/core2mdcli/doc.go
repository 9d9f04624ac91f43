// Package core2mdcli is the command line of core2md, the Linux ELF core to
// minidump converter: one cobra command that both the standalone core2md
// binary and `minidump-stackwalk core2md` run, so the two spell their flags
// (--stack-limit, --module, ...) and exit statuses (0 converted, 1 bad or
// unsupported core, 2 usage error) alike. The conversion is
// internal/coreconv.
package core2mdcli
