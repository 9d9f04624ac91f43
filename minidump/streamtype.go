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

var streamNames = map[StreamType]string{
	0:                         "MD_UNUSED_STREAM",
	1:                         "MD_RESERVED_STREAM_0",
	2:                         "MD_RESERVED_STREAM_1",
	StreamThreadList:          "MD_THREAD_LIST_STREAM",
	StreamModuleList:          "MD_MODULE_LIST_STREAM",
	StreamMemoryList:          "MD_MEMORY_LIST_STREAM",
	StreamException:           "MD_EXCEPTION_STREAM",
	StreamSystemInfo:          "MD_SYSTEM_INFO_STREAM",
	StreamThreadExList:        "MD_THREAD_EX_LIST_STREAM",
	StreamMemory64List:        "MD_MEMORY_64_LIST_STREAM",
	StreamCommentA:            "MD_COMMENT_STREAM_A",
	StreamCommentW:            "MD_COMMENT_STREAM_W",
	StreamHandleData:          "MD_HANDLE_DATA_STREAM",
	StreamFunctionTable:       "MD_FUNCTION_TABLE_STREAM",
	StreamUnloadedModuleList:  "MD_UNLOADED_MODULE_LIST_STREAM",
	StreamMiscInfo:            "MD_MISC_INFO_STREAM",
	StreamMemoryInfoList:      "MD_MEMORY_INFO_LIST_STREAM",
	StreamThreadInfoList:      "MD_THREAD_INFO_LIST_STREAM",
	StreamHandleOperationList: "MD_HANDLE_OPERATION_LIST_STREAM",
	StreamToken:               "MD_TOKEN_STREAM",
	StreamJavaScriptData:      "MD_JAVASCRIPT_DATA_STREAM",
	StreamSystemMemoryInfo:    "MD_SYSTEM_MEMORY_INFO_STREAM",
	StreamProcessVMCounters:   "MD_PROCESS_VM_COUNTERS_STREAM",
	StreamThreadNameList:      "MD_THREAD_NAME_LIST_STREAM",
	StreamBreakpadInfo:        "MD_BREAKPAD_INFO_STREAM",
	StreamAssertionInfo:       "MD_ASSERTION_INFO_STREAM",
	StreamLinuxCPUInfo:        "MD_LINUX_CPU_INFO",
	StreamLinuxProcStatus:     "MD_LINUX_PROC_STATUS",
	StreamLinuxLSBRelease:     "MD_LINUX_LSB_RELEASE",
	StreamLinuxCmdLine:        "MD_LINUX_CMD_LINE",
	StreamLinuxEnviron:        "MD_LINUX_ENVIRON",
	StreamLinuxAuxv:           "MD_LINUX_AUXV",
	StreamLinuxMaps:           "MD_LINUX_MAPS",
	StreamLinuxDSODebug:       "MD_LINUX_DSO_DEBUG",
	StreamCrashpadInfo:        "MD_CRASHPAD_INFO_STREAM",
	StreamMozMacOSCrashInfo:   "MOZ_MACOS_CRASH_INFO_STREAM",
}

// String returns Breakpad's name for the stream type, or "unknown (0x...)".
func (t StreamType) String() string {
	if n, ok := streamNames[t]; ok {
		return n
	}
	return fmt.Sprintf("unknown (%#x)", uint32(t))
}
