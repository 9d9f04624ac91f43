// Package cabwriter writes Microsoft cabinets (.pd_ files) for tests:
// symbol stores with compressed PDBs, for package cab's reader and the
// suppliers and command that read such stores. No product code writes
// cabinets.
package cabwriter
