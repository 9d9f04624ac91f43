package coreconv

func (c Client) String() string {
	switch c {
	case ClientBreakpad:
		return "breakpad"
	case ClientCrashpad:
		return "crashpad"
	case ClientStacks:
		return "stacks"
	}
	return "core2md"
}
