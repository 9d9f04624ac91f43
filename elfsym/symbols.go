package elfsym

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/xz"
)

// maxMiniDebugInfo bounds the decompressed .gnu_debugdata one file may
// make us hold.
const maxMiniDebugInfo = 64 << 20

// MiniDebugInfo returns the ELF file in f's .gnu_debugdata section
// (decompressed from xz, at most 64 MB), or nil when there is none.
func MiniDebugInfo(f *elf.File) (*elf.File, error) {
	s := f.Section(".gnu_debugdata")
	if s == nil || s.Type == elf.SHT_NOBITS {
		return nil, nil
	}
	if s.Size > maxMiniDebugInfo {
		return nil, fmt.Errorf("elfsym: .gnu_debugdata of %d bytes is over the limit", s.Size)
	}
	data, err := s.Data()
	if err != nil {
		return nil, fmt.Errorf("elfsym: .gnu_debugdata: %w", err)
	}
	r, err := xz.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("elfsym: .gnu_debugdata: %w", err)
	}
	out, err := io.ReadAll(io.LimitReader(r, maxMiniDebugInfo+1))
	if err != nil {
		return nil, fmt.Errorf("elfsym: .gnu_debugdata: %w", err)
	}
	if len(out) > maxMiniDebugInfo {
		return nil, errors.New("elfsym: .gnu_debugdata decompresses to over 64 MB")
	}
	mini, err := elf.NewFile(bytes.NewReader(out))
	if err != nil {
		return nil, fmt.Errorf("elfsym: .gnu_debugdata: %w", err)
	}
	return mini, nil
}
