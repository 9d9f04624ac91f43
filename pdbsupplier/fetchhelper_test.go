package pdbsupplier_test

import (
	"os"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/fetchhelper"
)

// TestMain builds the helper program that makes the downloads.
func TestMain(m *testing.M) { os.Exit(fetchhelper.Run(m, nil)) }
