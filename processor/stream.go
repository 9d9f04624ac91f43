package processor

// Stream is a stream (or list) of a dump whose problems a ProcessState
// records: the key of StreamError, of Failures (the essential streams)
// and of the order in which the JSON report lists read errors. Its String
// is the name the problems are printed under.
type Stream uint8

// The streams a ProcessState records problems of.
const (
	StreamSystemInfo      Stream = iota + 1 // "system info"
	StreamException                         // "exception"
	StreamThreadList                        // "thread list"; also the problems of walking the threads
	StreamModuleList                        // "module list"
	StreamUnloadedModules                   // "unloaded module list"
	StreamThreadNames                       // "thread names"
	StreamMemoryList                        // "memory list"
	// Streams read only for Facts.
	StreamSoftErrors  // "Mozilla soft errors"
	StreamMacBootArgs // "Mozilla macOS boot args"
	StreamHandleData  // "handle data"
	StreamCrashpad    // "Crashpad info"
)

// String returns the name problems of the stream are printed under.
func (s Stream) String() string {
	switch s {
	case StreamSystemInfo:
		return "system info"
	case StreamException:
		return "exception"
	case StreamThreadList:
		return "thread list"
	case StreamModuleList:
		return "module list"
	case StreamUnloadedModules:
		return "unloaded module list"
	case StreamThreadNames:
		return "thread names"
	case StreamMemoryList:
		return "memory list"
	case StreamSoftErrors:
		return "Mozilla soft errors"
	case StreamMacBootArgs:
		return "Mozilla macOS boot args"
	case StreamHandleData:
		return "handle data"
	case StreamCrashpad:
		return "Crashpad info"
	}
	return "stream"
}

// essentialStreams are the streams every report is built from, in the
// order their failures are reported.
var essentialStreams = [...]Stream{StreamSystemInfo, StreamException, StreamThreadList, StreamModuleList}
