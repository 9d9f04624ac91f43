package dumptext

// Breakpad's limits on lists and memory.
const (
	maxThreads     = 4096
	maxRegions     = 4096
	maxRegionBytes = 64 << 20
	threadSize     = 48
)

// memDesc is MDMemoryDescriptor.
type memDesc struct {
	start     uint64
	size, rva uint32
}

func parseMemDesc(b []byte) memDesc {
	return memDesc{le.Uint64(b), le.Uint32(b[8:]), le.Uint32(b[12:])}
}

// valid is MinidumpMemoryRegion's check: the range must not wrap.
func (m memDesc) valid() bool { return uint64(m.size) <= ^uint64(0)-m.start }

// printMemory is MinidumpMemoryRegion::Print in its raw (not -x) form.
func (d *dump) printMemory(m memDesc) {
	if !m.valid() {
		return
	}
	if m.size == 0 || !d.c.seek(int64(m.rva)) || m.size > maxRegionBytes {
		d.printf("No memory\n")
		return
	}
	b, ok := d.c.read(int64(m.size))
	if !ok {
		d.printf("No memory\n")
		return
	}
	d.printf("0x%x\n", b)
}

// listCount reads the count of a list stream of size n with entries of
// entrySize bytes, allowing the 4 bytes of padding some 64-bit writers
// add, as the thread, module and memory lists do.
func (d *dump) listCount(n uint32, entrySize uint32) (uint32, bool) {
	if n < 4 {
		return 0, false
	}
	count, ok := d.c.u32()
	if !ok || count > ^uint32(0)/entrySize {
		return 0, false
	}
	if n != 4+count*entrySize {
		if n != 8+count*entrySize {
			return 0, false
		}
		if _, ok := d.c.read(4); !ok {
			return 0, false
		}
	}
	return count, true
}

func (d *dump) printThreads() {
	n, ok := d.seekStream(typeThreadList)
	if !ok {
		return
	}
	count, ok := d.listCount(n, threadSize)
	if !ok || count > maxThreads {
		return
	}
	threads := make([][]byte, count)
	seen := map[uint32]bool{}
	for i := range threads {
		b, ok := d.c.read(threadSize)
		if !ok || seen[le.Uint32(b)] {
			return
		}
		seen[le.Uint32(b)] = true
		threads[i] = b
	}
	d.printf("MinidumpThreadList\n  thread_count = %d\n\n", int32(count))
	for i, t := range threads {
		d.printf("thread[%d]\n", i)
		d.printThread(t)
	}
}

// printThread is MinidumpThread::Print.
func (d *dump) printThread(t []byte) {
	stack := parseMemDesc(t[24:])
	ctxSize, ctxRVA := le.Uint32(t[40:]), le.Uint32(t[44:])
	d.printf("MDRawThread\n")
	d.printf("  thread_id                   = 0x%x\n", le.Uint32(t))
	d.printf("  suspend_count               = %d\n", int32(le.Uint32(t[4:])))
	d.printf("  priority_class              = 0x%x\n", le.Uint32(t[8:]))
	d.printf("  priority                    = 0x%x\n", le.Uint32(t[12:]))
	d.printf("  teb                         = 0x%x\n", le.Uint64(t[16:]))
	d.printf("  stack.start_of_memory_range = 0x%x\n", stack.start)
	d.printf("  stack.memory.data_size      = 0x%x\n", stack.size)
	d.printf("  stack.memory.rva            = 0x%x\n", stack.rva)
	d.printf("  thread_context.data_size    = 0x%x\n", ctxSize)
	d.printf("  thread_context.rva          = 0x%x\n", ctxRVA)
	d.printContextAt(ctxSize, ctxRVA)
	if stack.rva == 0 || stack.size == 0 || !stack.valid() {
		d.printf("No stack\n\n")
		return
	}
	d.printf("Stack\n")
	d.printMemory(stack)
	d.printf("\n")
}

// printContextAt reads and prints the context at rva, or "(no context)".
func (d *dump) printContextAt(size, rva uint32) {
	var c *context
	if d.c.seek(int64(rva)) {
		c = d.readContext(size)
	}
	if c == nil {
		d.printf("  (no context)\n\n")
		return
	}
	d.printf("\n")
	d.printContext(c)
}

func (d *dump) printThreadNames() {
	n, ok := d.seekStream(typeThreadNameList)
	if !ok || n < 4 {
		return
	}
	count, ok := d.c.u32()
	if !ok || count > ^uint32(0)/12 || n != 4+count*12 || count > maxThreads {
		return
	}
	entries := make([][]byte, count)
	for i := range entries {
		if entries[i], ok = d.c.read(12); !ok {
			return
		}
	}
	names := make([]string, count)
	for i, e := range entries {
		rva := le.Uint64(e[4:])
		if rva > 1<<63-1 {
			return
		}
		if names[i], ok = d.readString(int64(rva)); !ok {
			return
		}
	}
	d.printf("MinidumpThreadNameList\n  thread_name_count = %d\n\n", int32(count))
	for i, e := range entries {
		d.printf("thread_name[%d]\nMDRawThreadName\n", i)
		d.printf("  thread_id                   = 0x%x\n", le.Uint32(e))
		d.printf("  thread_name_rva             = 0x%x\n", le.Uint64(e[4:]))
		d.printf("  thread_name                 = \"%s\"\n\n", cstr(names[i]))
	}
}

func (d *dump) printMemoryList() {
	n, ok := d.seekStream(typeMemoryList)
	if !ok {
		return
	}
	count, ok := d.listCount(n, 16)
	if !ok || count > maxRegions {
		return
	}
	var descs []memDesc
	if count > 0 {
		b, ok := d.c.read(int64(count) * 16)
		if !ok {
			return
		}
		var ranges rangeMap
		for i := 0; i < int(count); i++ {
			m := parseMemDesc(b[16*i:])
			if m.size == 0 || !m.valid() || !ranges.store(m.start, uint64(m.size), i) {
				return
			}
			descs = append(descs, m)
		}
	}
	d.printf("MinidumpMemoryList\n  region_count = %d\n\n", int32(count))
	for i, m := range descs {
		d.printf("region[%d]\nMDMemoryDescriptor\n", i)
		d.printf("  start_of_memory_range = 0x%x\n", m.start)
		d.printf("  memory.data_size      = 0x%x\n", m.size)
		d.printf("  memory.rva            = 0x%x\n", m.rva)
		d.printf("Memory\n")
		d.printMemory(m)
		d.printf("\n")
	}
}
