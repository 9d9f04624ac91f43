package walker

import "errors"

var errNoMemory = errors.New("walker: no stack memory")
