//go:build !unix

package fetch

// processAlive cannot tell on this system: leftovers are removed by age.
func processAlive(pid int) bool { return true }
