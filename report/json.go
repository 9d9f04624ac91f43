package report

import (
	"encoding/json"
)

// This file holds the document model of the JSON report: rust-minidump's
// schema (the one Mozilla's Socorro reads), documented in docs/json-schema.md.
// Struct fields are in alphabetical order of their JSON names because
// rust-minidump's output (serde_json maps) has its keys sorted, and
// byte-for-byte agreement of the pretty output is convenient for diffing.
// Pointers and `any` hold fields that are null when unknown.

// JSONReport is the whole JSON document.
type JSONReport struct {
	CrashInfo               JSONCrashInfo        `json:"crash_info"`
	CrashingThread          *JSONThread          `json:"crashing_thread,omitempty"`
	CrashpadInfo            *JSONCrashpadInfo    `json:"crashpad_info,omitempty"` // only with the stream
	Handles                 any                  `json:"handles"`
	LinuxMemoryMapCount     *int                 `json:"linux_memory_map_count"`
	LSBRelease              *JSONLSBRelease      `json:"lsb_release"`
	MacBootArgs             any                  `json:"mac_boot_args"`
	MacCrashInfo            any                  `json:"mac_crash_info"`
	MainModule              *int                 `json:"main_module"`
	Modules                 []JSONModule         `json:"modules"`
	ModulesContainsCertInfo bool                 `json:"modules_contains_cert_info"`
	PID                     *uint32              `json:"pid"`
	ProcLimits              any                  `json:"proc_limits"`
	ProcessUptime           *uint32              `json:"process_uptime"`
	SoftErrors              json.RawMessage      `json:"soft_errors"`
	Status                  string               `json:"status"`
	SystemInfo              JSONSystemInfo       `json:"system_info"`
	ThreadCount             int                  `json:"thread_count"`
	Threads                 []JSONThread         `json:"threads"`
	UnloadedModules         []JSONUnloadedModule `json:"unloaded_modules"`

	// Errors lists the problems met while reading the dump (broken streams).
	// Our addition; absent when empty so that clean dumps match
	// rust-minidump's output exactly.
	Errors []string `json:"x_errors,omitempty"`
}

// JSONCrashInfo is "crash_info". Every field is null for a dump without an
// exception stream.
type JSONCrashInfo struct {
	Address                  *string       `json:"address"`
	AdjustedAddress          any           `json:"adjusted_address"`
	Assertion                *string       `json:"assertion"`
	CrashInconsistencies     []string      `json:"crash_inconsistencies"`
	CrashingThread           *int          `json:"crashing_thread"`
	Instruction              *string       `json:"instruction"`
	InstructionPointerUpdate any           `json:"instruction_pointer_update"`
	MemoryAccesses           any           `json:"memory_accesses"`
	PossibleBitFlips         []JSONBitFlip `json:"possible_bit_flips"`
	Type                     *string       `json:"type"`
}

// JSONBitFlip is one entry of crash_info.possible_bit_flips.
type JSONBitFlip struct {
	Address        string             `json:"address"`
	Confidence     json.Number        `json:"confidence"`
	Details        JSONBitFlipDetails `json:"details"`
	SourceRegister *string            `json:"source_register"`
}

// JSONBitFlipDetails explains a bit-flip candidate's confidence.
type JSONBitFlipDetails struct {
	IsNull          bool `json:"is_null"`
	NearbyRegisters int  `json:"nearby_registers"`
	PoisonRegisters bool `json:"poison_registers"`
	WasLow          bool `json:"was_low"`
	WasNonCanonical bool `json:"was_non_canonical"`
}

// JSONLSBRelease is "lsb_release" (Linux dumps with the lsb-release stream).
type JSONLSBRelease struct {
	Codename    string `json:"codename"`
	Description string `json:"description"`
	ID          string `json:"id"`
	Release     string `json:"release"`
}

// JSONModule is one entry of "modules".
type JSONModule struct {
	BaseAddr       string  `json:"base_addr"`
	CertSubject    *string `json:"cert_subject"`
	CodeID         *string `json:"code_id"`
	CorruptSymbols bool    `json:"corrupt_symbols"`
	DebugFile      *string `json:"debug_file"`
	DebugID        *string `json:"debug_id"`
	EndAddr        string  `json:"end_addr"`
	Filename       string  `json:"filename"`
	LoadedSymbols  bool    `json:"loaded_symbols"`
	MissingSymbols bool    `json:"missing_symbols"`
	SymbolURL      *string `json:"symbol_url"`
	Version        *string `json:"version"`
}

// JSONUnloadedModule is one entry of the top-level "unloaded_modules".
type JSONUnloadedModule struct {
	BaseAddr    string  `json:"base_addr"`
	CertSubject *string `json:"cert_subject"`
	CodeID      string  `json:"code_id"`
	EndAddr     string  `json:"end_addr"`
	Filename    string  `json:"filename"`
}

// JSONSystemInfo is "system_info".
type JSONSystemInfo struct {
	CPUArch             string  `json:"cpu_arch"`
	CPUCount            int     `json:"cpu_count"`
	CPUInfo             *string `json:"cpu_info"`
	CPUMicrocodeVersion *string `json:"cpu_microcode_version"`
	OS                  string  `json:"os"`
	OSVer               *string `json:"os_ver"`
}

// JSONThread is one entry of "threads", and "crashing_thread" (which adds
// threads_index and the registers of frame 0).
type JSONThread struct {
	FrameCount     int         `json:"frame_count"`
	Frames         []JSONFrame `json:"frames"`
	LastErrorValue *string     `json:"last_error_value"`
	ThreadID       uint32      `json:"thread_id"`
	ThreadName     *string     `json:"thread_name"`
	ThreadsIndex   *int        `json:"threads_index,omitempty"`
}

// JSONFrame is one physical stack frame; the functions inlined into it are
// in Inlines, innermost first.
type JSONFrame struct {
	File            *string                   `json:"file"`
	Frame           int                       `json:"frame"`
	Function        *string                   `json:"function"`
	FunctionOffset  *string                   `json:"function_offset"`
	Inlines         []JSONInline              `json:"inlines"`
	Line            *int                      `json:"line"`
	MissingSymbols  bool                      `json:"missing_symbols"`
	Module          *string                   `json:"module"`
	ModuleOffset    *string                   `json:"module_offset"`
	Offset          string                    `json:"offset"`
	Registers       map[string]string         `json:"registers,omitempty"`
	Trust           string                    `json:"trust"`
	UnloadedModules []JSONFrameUnloadedModule `json:"unloaded_modules"`
}

// JSONInline is one inlined call of a frame.
type JSONInline struct {
	File     *string `json:"file"`
	Function string  `json:"function"`
	Line     *int    `json:"line"`
}

// JSONFrameUnloadedModule names an unloaded module that covered a frame's
// address (a frame in no loaded module), with the offsets into each of its
// instances.
type JSONFrameUnloadedModule struct {
	Module  string   `json:"module"`
	Offsets []string `json:"offsets"`
}
