package minidump

import "fmt"

// StreamType is MINIDUMP_STREAM_TYPE, including Breakpad's, Crashpad's and Mozilla's extensions.
type StreamType uint32

// Stream types.
const (
	StreamThreadList          StreamType = 3
	StreamModuleList          StreamType = 4
	StreamMemoryList          StreamType = 5
	StreamException           StreamType = 6
	StreamSystemInfo          StreamType = 7
	StreamThreadExList        StreamType = 8
	StreamMemory64List        StreamType = 9
	StreamCommentA            StreamType = 10
	StreamCommentW            StreamType = 11
	StreamHandleData          StreamType = 12
	StreamFunctionTable       StreamType = 13
	StreamUnloadedModuleList  StreamType = 14
	StreamMiscInfo            StreamType = 15
	StreamMemoryInfoList      StreamType = 16
	StreamThreadInfoList      StreamType = 17
	StreamHandleOperationList StreamType = 18
	StreamToken               StreamType = 19
	StreamJavaScriptData      StreamType = 20
	StreamSystemMemoryInfo    StreamType = 21
	StreamProcessVMCounters   StreamType = 22
	StreamThreadNameList      StreamType = 24

	StreamBreakpadInfo    StreamType = 0x47670001
	StreamAssertionInfo   StreamType = 0x47670002
	StreamLinuxCPUInfo    StreamType = 0x47670003
	StreamLinuxProcStatus StreamType = 0x47670004
	StreamLinuxLSBRelease StreamType = 0x47670005
	StreamLinuxCmdLine    StreamType = 0x47670006
	StreamLinuxEnviron    StreamType = 0x47670007
	StreamLinuxAuxv       StreamType = 0x47670008
	StreamLinuxMaps       StreamType = 0x47670009
	StreamLinuxDSODebug   StreamType = 0x4767000a

	StreamCrashpadInfo StreamType = 0x43500001

	StreamMozMacOSCrashInfo StreamType = 0x4d7a0001
)

// String returns Breakpad's name for the stream type, or "unknown (0x...)".
func (t StreamType) String() string {
	switch t {
	case 0:
		return "MD_UNUSED_STREAM"
	case 1:
		return "MD_RESERVED_STREAM_0"
	case 2:
		return "MD_RESERVED_STREAM_1"
	case StreamThreadList:
		return "MD_THREAD_LIST_STREAM"
	case StreamModuleList:
		return "MD_MODULE_LIST_STREAM"
	case StreamMemoryList:
		return "MD_MEMORY_LIST_STREAM"
	case StreamException:
		return "MD_EXCEPTION_STREAM"
	case StreamSystemInfo:
		return "MD_SYSTEM_INFO_STREAM"
	case StreamThreadExList:
		return "MD_THREAD_EX_LIST_STREAM"
	case StreamMemory64List:
		return "MD_MEMORY_64_LIST_STREAM"
	case StreamCommentA:
		return "MD_COMMENT_STREAM_A"
	case StreamCommentW:
		return "MD_COMMENT_STREAM_W"
	case StreamHandleData:
		return "MD_HANDLE_DATA_STREAM"
	case StreamFunctionTable:
		return "MD_FUNCTION_TABLE_STREAM"
	case StreamUnloadedModuleList:
		return "MD_UNLOADED_MODULE_LIST_STREAM"
	case StreamMiscInfo:
		return "MD_MISC_INFO_STREAM"
	case StreamMemoryInfoList:
		return "MD_MEMORY_INFO_LIST_STREAM"
	case StreamThreadInfoList:
		return "MD_THREAD_INFO_LIST_STREAM"
	case StreamHandleOperationList:
		return "MD_HANDLE_OPERATION_LIST_STREAM"
	case StreamToken:
		return "MD_TOKEN_STREAM"
	case StreamJavaScriptData:
		return "MD_JAVASCRIPT_DATA_STREAM"
	case StreamSystemMemoryInfo:
		return "MD_SYSTEM_MEMORY_INFO_STREAM"
	case StreamProcessVMCounters:
		return "MD_PROCESS_VM_COUNTERS_STREAM"
	case StreamThreadNameList:
		return "MD_THREAD_NAME_LIST_STREAM"
	case StreamBreakpadInfo:
		return "MD_BREAKPAD_INFO_STREAM"
	case StreamAssertionInfo:
		return "MD_ASSERTION_INFO_STREAM"
	case StreamLinuxCPUInfo:
		return "MD_LINUX_CPU_INFO"
	case StreamLinuxProcStatus:
		return "MD_LINUX_PROC_STATUS"
	case StreamLinuxLSBRelease:
		return "MD_LINUX_LSB_RELEASE"
	case StreamLinuxCmdLine:
		return "MD_LINUX_CMD_LINE"
	case StreamLinuxEnviron:
		return "MD_LINUX_ENVIRON"
	case StreamLinuxAuxv:
		return "MD_LINUX_AUXV"
	case StreamLinuxMaps:
		return "MD_LINUX_MAPS"
	case StreamLinuxDSODebug:
		return "MD_LINUX_DSO_DEBUG"
	case StreamCrashpadInfo:
		return "MD_CRASHPAD_INFO_STREAM"
	case StreamMozMacOSCrashInfo:
		return "MOZ_MACOS_CRASH_INFO_STREAM"
	}
	return fmt.Sprintf("unknown (%#x)", uint32(t))
}
