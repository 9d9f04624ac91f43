// Package rangeset is an ordered set of disjoint address ranges, keyed by
// their inclusive high address, with O(log n) insertion, removal and
// search. It backs Breakpad's range-map merge rules for module lists
// (packages minidump, microdump and walker), which used to insert into a
// sorted slice: O(n) per module, quadratic in a hostile list.
package rangeset
