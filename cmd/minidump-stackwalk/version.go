package main

// --version / -V: the module version and VCS revision the binary was built
// from, as the Go toolchain stamps them into the build info.

import (
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// versionString describes the build: "v1.2.3", or for a build from a
// checkout the toolchain's pseudo-version, followed by the revision, its
// time and "+dirty" for uncommitted changes when the build info has them.
func versionString(info *debug.BuildInfo, ok bool) string {
	if !ok || info == nil {
		return "(unknown: built without module information)"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	var vcs []string
	if rev := settings["vcs.revision"]; rev != "" {
		if settings["vcs.modified"] == "true" {
			rev += "+dirty"
		}
		vcs = append(vcs, settings["vcs"]+" "+rev)
	}
	if t := settings["vcs.time"]; t != "" {
		vcs = append(vcs, t)
	}
	if info.GoVersion != "" {
		vcs = append(vcs, info.GoVersion)
	}
	if len(vcs) == 0 {
		return v
	}
	return v + " (" + strings.Join(vcs, ", ") + ")"
}

// addVersionFlag gives cmd --version and -V (rust-minidump's spellings);
// cobra prints cmd.Version when the flag is set, before the arguments are
// checked.
func addVersionFlag(cmd *cobra.Command, fs *pflag.FlagSet) {
	cmd.Version = versionString(debug.ReadBuildInfo())
	cmd.SetVersionTemplate("minidump-stackwalk {{.Version}}\n")
	fs.BoolP("version", "V", false, "print the version and the VCS revision it was built from, and exit")
}
