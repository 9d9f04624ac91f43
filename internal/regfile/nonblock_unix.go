//go:build unix

package regfile

import "syscall"

// oNonblock makes opening a FIFO return at once; it changes nothing for a
// regular file.
const oNonblock = syscall.O_NONBLOCK
