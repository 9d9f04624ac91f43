package htmlreport

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/minidump-stackwalk/minidump-stackwalk/triage/summary"
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

// browser is one headless Chromium for the subtests, with the script
// errors and console errors of its pages.
type browser struct {
	ctx    context.Context
	mu     sync.Mutex
	errors []string
}

func newBrowser(t *testing.T) *browser {
	bin := chromium(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin),
		chromedp.NoSandbox, chromedp.UserDataDir(browserProfile(t)), chromedp.WindowSize(1200, 900),
		// A loaded machine (go test ./... runs packages in parallel) can
		// take Chromium well past chromedp's 20 s to start.
		chromedp.WSURLReadTimeout(2*time.Minute))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	ctx, cancelTimeout := context.WithTimeout(ctx, 4*time.Minute)
	t.Cleanup(cancelTimeout)
	b := &browser{ctx: ctx}
	chromedp.ListenTarget(ctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			b.errors = append(b.errors, e.ExceptionDetails.Error())
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError {
				b.errors = append(b.errors, fmt.Sprintf("console.error: %v", e.Args))
			}
		case *log.EventEntryAdded: // a Content-Security-Policy violation, among others
			if e.Entry.Level == log.LevelError {
				b.errors = append(b.errors, fmt.Sprintf("%s: %s", e.Entry.Source, e.Entry.Text))
			}
		}
	})
	if err := chromedp.Run(ctx, log.Enable()); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	return b
}

// takeErrors returns the errors seen since the last call.
func (b *browser) takeErrors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	e := b.errors
	b.errors = nil
	return e
}

// screenshotDir is $HTMLREPORT_SCREENSHOTS, made if need be, or a
// temporary directory of the test.
func screenshotDir(t *testing.T) string {
	dir := os.Getenv("HTMLREPORT_SCREENSHOTS")
	if dir == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// writePage writes s's report into a new directory as report.html, with
// links to reports/NAME.json, and writes every such report the page links
// to (as batch --output-dir next to the page would).
func writePage(t *testing.T, s *summary.Summary) (page string, size int) {
	t.Helper()
	dir := t.TempDir()
	reports := filepath.Join(dir, "reports")
	if err := os.Mkdir(reports, 0o755); err != nil {
		t.Fatal(err)
	}
	name := func(p string) string { return strings.ReplaceAll(strings.TrimPrefix(p, "/"), "/", "_") + ".json" }
	link := func(p string) string { return "./reports/" + url.PathEscape(name(p)) }
	var paths []string
	for _, g := range s.Groups {
		paths = append(paths, g.Examples...)
	}
	for _, f := range s.Failures {
		paths = append(paths, f.Path)
	}
	for _, p := range paths {
		if err := os.WriteFile(filepath.Join(reports, name(p)), []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if err := Write(&buf, s, Options{ReportLink: link}); err != nil {
		t.Fatal(err)
	}
	page = filepath.Join(dir, "report.html")
	if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return page, buf.Len()
}

// tableState is what the page shows of its table.
type tableState struct {
	Rows    int      `json:"rows"`    // group rows in the table
	Shown   int      `json:"shown"`   // the status line's figures
	Matched int      `json:"matched"` // groups passing the filters
	Dumps   int      `json:"dumps"`
	Sigs    []string `json:"sigs"` // of the rows, in order
}

const readTable = `(() => {
  const s = document.getElementById("status").dataset;
  const rows = Array.from(document.querySelectorAll("#groups tbody.g"));
  return {rows: rows.length, shown: Number(s.shown), matched: Number(s.matched), dumps: Number(s.dumps),
    sigs: rows.map(b => b.dataset.sig)};
})()`

// timed runs a click in the page and returns how long it took, layout
// included, in milliseconds (performance.now).
func timed(selector string) string {
	return fmt.Sprintf(`(() => {
  const el = document.querySelector(%q);
  const t0 = performance.now();
  el.click();
  document.body.getBoundingClientRect();
  return performance.now() - t0;
})()`, selector)
}

// The report in a real headless browser, at 10 and 10,000 dumps made
// from the testdata crashes' batch results: it loads without errors, the
// search box and the breakdowns filter the table (checked against counts
// from the summary), pages of 100 rows keep it light, a group expands
// with links to report files that exist, a filter takes < 500 ms, and
// screenshots show a page.
func TestReportInChromium(t *testing.T) {
	b := newBrowser(t) // one browser for the subtests: starting one is slow
	shots := screenshotDir(t)
	t.Run("sample", func(t *testing.T) { checkSample(t, b, shots) })
	for _, n := range []int{10, 10000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			s := syntheticSummary(t, n, 3)
			page, size := writePage(t, s)
			t.Logf("%d dumps: %d groups, %d distinct stacks, page %d bytes", n, len(s.Groups), len(s.Stacks), size)
			if size > 8<<20 {
				t.Errorf("page of %d bytes for %d dumps: want under 8 MiB", size, n)
			}
			checkReport(t, b, s, page, filepath.Join(shots, fmt.Sprintf("report-%d.png", n)))
		})
	}
}

// checkReport loads the page of summary s and checks, as a user would use
// it: the table as loaded, the search box, a breakdown's button and "Show
// more", an expanded group; and that the page logged no error.
func checkReport(t *testing.T, b *browser, s *summary.Summary, page, shotPath string) {
	checkLoaded(t, b.ctx, s, page, shotPath)
	checkSearch(t, b.ctx, s)
	checkOSFilter(t, b.ctx, s)
	checkExpanded(t, b.ctx)
	if errs := b.takeErrors(); len(errs) > 0 {
		t.Errorf("script or console errors: %q", errs)
	}
}

// checkLoaded: the page as loaded shows the first 100 groups, the largest
// first, and counts every group and dump.
func checkLoaded(t *testing.T, ctx context.Context, s *summary.Summary, page, shotPath string) {
	grouped := 0
	for _, g := range s.Groups {
		grouped += g.Count
	}
	var st tableState
	var shot []byte
	if err := chromedp.Run(ctx, chromedp.Navigate("file://"+page), chromedp.WaitVisible(`#groups tbody`, chromedp.ByQuery),
		chromedp.Evaluate(readTable, &st), chromedp.FullScreenshot(&shot, 100)); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	want := tableState{Rows: min(100, len(s.Groups)), Shown: min(100, len(s.Groups)), Matched: len(s.Groups), Dumps: grouped}
	if st.Rows != want.Rows || st.Shown != want.Shown || st.Matched != want.Matched || st.Dumps != want.Dumps {
		t.Errorf("as loaded: %+v, want %+v", st, want)
	}
	if len(st.Sigs) > 0 && st.Sigs[0] != s.Groups[0].Signature {
		t.Errorf("first row %q, want the largest group %q", st.Sigs[0], s.Groups[0].Signature)
	}
	saveShot(t, shot, shotPath)
}

// checkSearch: the search box shows the groups of one plugin's signature
// (its name is nowhere else but in their frames).
func checkSearch(t *testing.T, ctx context.Context, s *summary.Summary) {
	var st tableState
	term := "plugin_v1::"
	if len(s.Groups) <= 10 {
		term = strings.ToLower(s.Groups[1].Signature[:min(12, len(s.Groups[1].Signature))])
	}
	wantSearch := 0
	for _, g := range s.Groups {
		if strings.Contains(strings.ToLower(g.Signature), term) {
			wantSearch++
		}
	}
	if err := chromedp.Run(ctx, chromedp.SendKeys(`#q`, term, chromedp.ByID), chromedp.Evaluate(readTable, &st)); err != nil {
		t.Fatal(err)
	}
	if st.Matched < wantSearch || st.Matched == len(s.Groups) || st.Rows != min(100, st.Matched) {
		t.Errorf("search %q: %+v, want at least the %d groups whose signature has it, not all %d", term, st, wantSearch, len(s.Groups))
	}
	for _, sig := range st.Sigs {
		if !strings.Contains(strings.ToLower(sig), term) && len(s.Groups) > 10 {
			t.Errorf("search %q shows %q", term, sig)
			break
		}
	}

}

// checkOSFilter: Clear, then a breakdown's button: Windows NT only,
// counted from the summary's configs; its time in the page. With more
// than a page, "Show more" adds the next one.
func checkOSFilter(t *testing.T, ctx context.Context, s *summary.Summary) {
	var st tableState
	wantGroups, wantDumps := 0, 0
	for _, g := range s.Groups {
		n := 0
		for _, c := range g.Configs {
			if c.OS == "Windows NT" {
				n += c.Count
			}
		}
		if n > 0 {
			wantGroups, wantDumps = wantGroups+1, wantDumps+n
		}
	}
	var ms float64
	var pressed string
	if err := chromedp.Run(ctx, chromedp.Click(`#clear`, chromedp.ByID),
		chromedp.Evaluate(timed(`#facets button[data-facet=os][data-value="Windows NT"]`), &ms),
		chromedp.Evaluate(readTable, &st),
		chromedp.AttributeValue(`#facets button[data-facet=os][data-value="Windows NT"]`, "aria-pressed", &pressed, nil, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	t.Logf("filter by OS: %.1f ms in the page", ms)
	if ms > 500 {
		t.Errorf("filtering by OS took %.0f ms, want < 500", ms)
	}
	if st.Matched != wantGroups || st.Dumps != wantDumps || st.Rows != min(100, wantGroups) || pressed != "true" {
		t.Errorf("OS Windows NT: %+v (pressed %s), want %d groups, %d dumps", st, pressed, wantGroups, wantDumps)
	}

	if st.Matched > 100 {
		if err := chromedp.Run(ctx, chromedp.Click(`#more`, chromedp.ByID), chromedp.Evaluate(readTable, &st)); err != nil {
			t.Fatal(err)
		}
		if st.Rows != min(200, st.Matched) {
			t.Errorf("after Show more: %d rows, want %d", st.Rows, min(200, st.Matched))
		}
	}

}

// checkExpanded: the first group expanded shows its stack, reasons and
// links to the dumps' reports, which exist.
func checkExpanded(t *testing.T, ctx context.Context) {
	var detail string
	var hrefs []string
	if err := chromedp.Run(ctx, chromedp.Click(`#groups tbody.g tr.group`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector("#groups tbody.g tr.detail").innerText`, &detail),
		chromedp.Evaluate(`Array.from(document.querySelectorAll("#groups tr.detail a, #failures a")).map(a => a.href)`, &hrefs)); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"Representative stack", "Crash reasons", "Windows NT", "Dumps"} {
		if !strings.Contains(detail, w) {
			t.Errorf("expanded group lacks %q:\n%s", w, detail)
		}
	}
	if len(hrefs) == 0 {
		t.Error("no link to a dump's report")
	}
	for _, h := range hrefs {
		u, err := url.Parse(h)
		if err != nil || u.Scheme != "file" {
			t.Errorf("link %q: not a file URL (%v)", h, err)
			continue
		}
		if _, err := os.Stat(u.Path); err != nil {
			t.Errorf("link %q: %v", h, err)
		}
	}
}

// The sample's hostile signature shows as text, the table sorts, the
// reasons read well, and the blank-page control keeps the screenshot
// check honest.
func checkSample(t *testing.T, b *browser, shots string) {
	page, _ := writePage(t, sampleSummary())
	var order []string
	var sigText, reasons string
	var scripts int
	var shot []byte
	err := chromedp.Run(b.ctx, chromedp.Navigate("file://"+page), chromedp.WaitVisible(`#groups tbody`, chromedp.ByQuery),
		chromedp.Click(`#groups thead th[data-key=sig]`, chromedp.ByQuery),
		chromedp.Evaluate(`Array.from(document.querySelectorAll("#groups tbody.g")).map(b => b.dataset.sig)`, &order),
		chromedp.Evaluate(`document.querySelector('#groups tbody.g[data-rank="2"] td.sig').textContent`, &sigText),
		chromedp.Evaluate(`document.querySelector('#groups tbody.g[data-rank="1"] tr.group').cells[4].textContent`, &reasons),
		chromedp.Evaluate(`document.scripts.length`, &scripts),
		chromedp.FullScreenshot(&shot, 100))
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	want := []string{"<script>alert(1)</script>", "Foo::crash", "alpha", "zeta::other"}
	if !slices.Equal(order, want) {
		t.Errorf("after sorting by signature: %q, want %q", order, want)
	}
	if sigText != "<script>alert(1)</script>" || scripts != 2 {
		t.Errorf("hostile signature shows as %q with %d scripts in the page, want the text and 2", sigText, scripts)
	}
	if reasons != "SIGSEGV / SEGV_MAPERR (+1 more)" {
		t.Errorf("reasons cell %q", reasons)
	}
	saveShot(t, shot, filepath.Join(shots, "report-sample.png"))
	if errs := b.takeErrors(); len(errs) > 0 {
		t.Errorf("script or console errors: %q", errs)
	}
	var blank []byte
	if err := chromedp.Run(b.ctx, chromedp.Navigate("about:blank"), chromedp.FullScreenshot(&blank, 100)); err != nil {
		t.Fatal(err)
	}
	if ink := inkFraction(t, blank); ink >= 0.01 {
		t.Errorf("the blank-page control has %.4f ink: the check would not catch an empty page", ink)
	}
}

// saveShot checks that a screenshot decodes as a PNG that is not blank,
// and saves it.
func saveShot(t *testing.T, shot []byte, path string) {
	t.Helper()
	if ink := inkFraction(t, shot); ink < 0.01 {
		t.Errorf("screenshot is nearly blank: %.4f of its pixels differ from the background", ink)
	}
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
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
