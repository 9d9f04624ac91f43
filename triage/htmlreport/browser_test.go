package htmlreport

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chromium returns the path of a Chromium (Debian's chromium; .ci/run
// installs it), or skips t.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{os.Getenv("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium in PATH (bash .ci/run installs Debian's chromium; or set CHROMIUM): browser test skipped")
	return ""
}

// The report in a real headless browser: it loads without script errors,
// the table sorts, a group expands, and a screenshot shows a page.
func TestReportInChromium(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	var buf bytes.Buffer
	if err := Write(&buf, sampleSummary()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin),
		chromedp.NoSandbox, chromedp.UserDataDir(browserProfile(t)), chromedp.WindowSize(1200, 900),
		// A loaded machine (go test ./... runs packages in parallel) can
		// take Chromium well past chromedp's 20 s to start.
		chromedp.WSURLReadTimeout(2*time.Minute))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 4*time.Minute)
	defer cancelTimeout()

	var mu sync.Mutex
	var scriptErrors []string
	chromedp.ListenTarget(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			scriptErrors = append(scriptErrors, e.ExceptionDetails.Error())
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError {
				scriptErrors = append(scriptErrors, fmt.Sprintf("console.error: %v", e.Args))
			}
		}
	})

	var sigs []string
	var order []string
	var detailHidden bool
	var detailText string
	var shot []byte
	err := chromedp.Run(ctx,
		chromedp.Navigate("file://"+page),
		chromedp.WaitVisible(`#groups`, chromedp.ByID),
		chromedp.Evaluate(`Array.from(document.querySelectorAll("#groups tbody.g")).map(b => b.dataset.sig)`, &sigs),
		chromedp.FullScreenshot(&shot, 100),
		// Sort by signature, ascending.
		chromedp.Click(`#groups thead th[data-key=sig]`, chromedp.ByQuery),
		chromedp.Evaluate(`Array.from(document.querySelectorAll("#groups tbody.g")).map(b => b.dataset.sig)`, &order),
		// Expand the group of Foo::crash.
		chromedp.Click(`#groups tbody.g[data-sig="Foo::crash"] tr.group`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('#groups tbody.g[data-sig="Foo::crash"] tr.detail').hidden`, &detailHidden),
		chromedp.Evaluate(`document.querySelector('#groups tbody.g[data-sig="Foo::crash"] tr.detail').innerText`, &detailText),
	)
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	mu.Lock()
	if len(scriptErrors) > 0 {
		t.Errorf("script errors: %v", scriptErrors)
	}
	mu.Unlock()
	if len(sigs) != 4 || sigs[0] != "Foo::crash" {
		t.Errorf("groups as loaded: %q, want 4 with Foo::crash first", sigs)
	}
	want := []string{"<script>alert(1)</script>", "Foo::crash", "alpha", "zeta::other"}
	if strings.Join(order, "\n") != strings.Join(want, "\n") {
		t.Errorf("after sorting by signature: %q, want %q", order, want)
	}
	if detailHidden {
		t.Error("the clicked group did not expand")
	}
	for _, w := range []string{"Representative stack", "Foo::crash()", "/src/foo.cc:42", "Other stacks", "/d/a0.dmp"} {
		if !strings.Contains(detailText, w) {
			t.Errorf("expanded group lacks %q:\n%s", w, detailText)
		}
	}
	if ink := inkFraction(t, shot); ink < 0.01 {
		t.Errorf("screenshot is nearly blank: %.4f of its pixels differ from the background", ink)
	}

	// The screenshot check itself fails on an empty page.
	var blank []byte
	if err := chromedp.Run(ctx, chromedp.Navigate("about:blank"), chromedp.FullScreenshot(&blank, 100)); err != nil {
		t.Fatal(err)
	}
	if ink := inkFraction(t, blank); ink >= 0.01 {
		t.Errorf("the blank-page control has %.4f ink: the check would not catch an empty page", ink)
	}
}

// inkFraction is the share of a screenshot's pixels that differ from its
// top-left (background) pixel.
func inkFraction(t *testing.T, shot []byte) float64 {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	b := img.Bounds()
	bg := colorAt(img, b.Min.X, b.Min.Y)
	diff, total := 0, 0
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			total++
			if colorAt(img, x, y) != bg {
				diff++
			}
		}
	}
	return float64(diff) / float64(max(total, 1))
}

func colorAt(img image.Image, x, y int) [3]uint32 {
	r, g, b, _ := img.At(x, y).RGBA()
	return [3]uint32{r >> 8, g >> 8, b >> 8}
}

// browserProfile returns a directory for Chromium's profile, removed after
// the test. Not under t.TempDir: Chromium's helper processes may still be
// writing to it for a moment after the browser is cancelled, and
// t.TempDir's single RemoveAll then fails the test.
func browserProfile(t *testing.T) string {
	dir, err := os.MkdirTemp("", "htmlreport-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for range 50 {
			if os.RemoveAll(dir) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("leaving %s: %v", dir, os.RemoveAll(dir))
	})
	return dir
}
