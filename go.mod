module github.com/minidump-stackwalk/minidump-stackwalk

go 1.26.0

require (
	github.com/google/go-cmp v0.7.0
	github.com/ianlancetaylor/demangle v0.0.0-20260724033716-83e58baca724
	github.com/klauspost/compress v1.20.3
	github.com/spf13/cobra v1.10.2
	github.com/spf13/pflag v1.0.9
	golang.org/x/arch v0.33.0
)

require github.com/inconshreveable/mousetrap v1.1.0 // indirect
