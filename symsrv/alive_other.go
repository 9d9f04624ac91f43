//go:build !unix

package symsrv

// processAlive cannot tell on this system: leftovers are removed by age.
func processAlive(pid int) bool { return true }
