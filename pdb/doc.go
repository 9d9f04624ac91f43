// Package pdb reads Microsoft program databases (PDB, the MSF 7.0
// container) as the Windows toolchains (MSVC's link, lld-link) write them:
// the stream directory, the PDB info stream (GUID, age, named streams),
// DBI (modules, section contributions, section map, the optional debug
// streams: FPO, FrameData, section headers), public symbols (S_PUB32),
// module symbol streams (procedures, thunks, inline sites), C13 line
// information with file checksums and the /names string table, the
// inlinee lines, the IPI records that name functions (LF_FUNC_ID,
// LF_MFUNC_ID) and the TPI records that give their argument lists, FPO_DATA
// and FrameData.
//
// A PDB is untrusted input: every count, size, offset and block number is
// checked against the file before it is used, a stream is never larger
// than the file's blocks allow, and every error is a *FormatError naming
// the stream and offset where reading stopped. The API is small, in the
// style of debug/elf: Open, then the File's methods read what is asked for,
// each once.
package pdb
