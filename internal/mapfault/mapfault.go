package mapfault

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"sync"
)

// Error is a fault reading a memory-mapped file: the file changed size (was
// truncated) while it was being read.
type Error struct {
	File string  // the mapped file, "" when not known
	Addr uintptr // the faulting address
}

func (e *Error) Error() string {
	const what = "memory-mapped file changed while it was read (truncated by another process?)"
	if e.File == "" {
		return fmt.Sprintf("%s: fault at %#x", what, e.Addr)
	}
	return fmt.Sprintf("%s: %s: fault at %#x", e.File, what, e.Addr)
}

// addrError is what the runtime panics with on a fault when SetPanicOnFault
// is on.
type addrError interface {
	error
	Addr() uintptr
}

// Enable makes a fault in the calling goroutine a panic instead of a fatal
// error, and returns the function that restores the previous setting.
func Enable() (restore func()) {
	old := debug.SetPanicOnFault(true)
	return func() { debug.SetPanicOnFault(old) }
}

// From returns the *Error a recovered panic value stands for, or nil when
// the value is no fault on a mapping (a nil dereference, another panic).
func From(v any) *Error {
	switch e := v.(type) {
	case *Error:
		return e
	case addrError:
		if e.Addr() >= uintptr(os.Getpagesize()) {
			return &Error{Addr: e.Addr()}
		}
	}
	return nil
}

// Recover, deferred, turns a fault panic into an *Error stored in *errp;
// file names the file when the fault does not name one already. Any other
// panic goes on.
func Recover(errp *error, file string) {
	v := recover()
	if v == nil {
		return
	}
	e := From(v)
	if e == nil {
		panic(v)
	}
	if e.File == "" {
		e.File = file
	}
	*errp = e
}

// Name, deferred in a function that reads a mapping of file, names the file
// on a fault passing through and lets it go on.
func Name(file string) {
	v := recover()
	if v == nil {
		return
	}
	if e := From(v); e != nil {
		if e.File == "" {
			e.File = file
		}
		panic(e)
	}
	panic(v)
}

// Group runs goroutines that read mappings and carries their first panic
// to the goroutine that waits for them: a fault as its *Error, any other
// panic (a bug) as a *Panic with the goroutine's stack. A panic in a
// goroutine nobody can recover would kill the process; raised again in
// Wait, it reaches the caller's boundary. The zero Group is ready.
type Group struct {
	wg     sync.WaitGroup
	once   sync.Once
	caught any
}

// Go runs f in a new goroutine with faults enabled.
func (g *Group) Go(f func()) {
	g.wg.Go(func() {
		defer func() {
			if v := recover(); v != nil {
				if e := From(v); e != nil {
					v = e
				} else {
					v = &Panic{Value: v, Stack: debug.Stack()}
				}
				g.once.Do(func() { g.caught = v })
			}
		}()
		defer Enable()()
		f()
	})
}

// Wait waits for the goroutines, then raises their first panic again.
func (g *Group) Wait() {
	g.wg.Wait()
	if g.caught != nil {
		panic(g.caught)
	}
}

// Panic is a panic of a Group's goroutine, raised again by Wait.
type Panic struct {
	Value any
	Stack []byte // the goroutine's where it panicked
}

func (p *Panic) Error() string {
	return fmt.Sprintf("%v\n[in a worker goroutine]\n%s", p.Value, p.Stack)
}

// Throw raises err again, as a panic, when it is an *Error; the caller
// waited for a goroutine that caught it, and its own boundary recovers it.
func Throw(err error) {
	var e *Error
	if errors.As(err, &e) {
		panic(e)
	}
}
