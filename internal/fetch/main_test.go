package fetch_test

import (
	"os"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/fetchhelper"
)

// TestMain builds the helper program the Client's requests go through.
func TestMain(m *testing.M) { os.Exit(fetchhelper.Run(m, nil)) }
