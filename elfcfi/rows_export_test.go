package elfcfi

// Rows and RowAt give the tests a whole table or one row; the product
// reads rows through ForEachRow and Events.

// Rows executes the FDE's instructions and returns every row of its table,
// in address order.
// A hostile FDE can hold millions of rows of hundreds of rules; Rows
// refuses to hold more than maxRowRules rules in all (ForEachRow has no
// such bound: it holds one row at a time).
func (f *FDE) Rows() ([]Row, error) {
	var rows []Row
	total := 0
	err := f.ForEachRow(func(r Row) bool {
		total += len(r.Regs) + 1
		if total > maxRowRules {
			return false
		}
		rows = append(rows, r.clone())
		return true
	})
	if err == nil && total > maxRowRules {
		err = f.section.errAt(f.Offset, "FDE has over %d rules in all its rows", maxRowRules)
	}
	return rows, err
}

const maxRowRules = 1 << 21

// RowAt returns the row covering pc, which must lie in [Begin, End).
func (f *FDE) RowAt(pc uint64) (Row, error) {
	if pc < f.Begin || pc >= f.End {
		return Row{}, ErrNotFound
	}
	var found Row
	ok := false
	err := f.run(func(r Row) bool {
		if pc >= r.Loc && pc < r.End {
			found, ok = r.clone(), true
			return false
		}
		return r.Loc <= pc
	})
	if err != nil {
		return Row{}, err
	}
	if !ok {
		return Row{}, ErrNotFound
	}
	return found, nil
}

// ForEachRow calls fn with each row of the FDE's table in address order,
// until fn returns false. The row's Regs are only valid during the call:
// keep a copy.
func (f *FDE) ForEachRow(fn func(Row) bool) error {
	return f.run(fn)
}

func (f *FDE) run(emit func(Row) bool) error {
	m := &machine{s: f.section, cie: f.CIE, end: f.End, emit: func(Row) bool { return true }}
	m.row.Loc = f.Begin
	// The CIE's instructions may not advance the location (DWARF 5
	// 6.4.1); they set the initial rules.
	if err := m.exec(f.CIE.Instructions, f.CIE.instructionAt, true); err != nil {
		return err
	}
	m.initial = m.row.clone()
	m.emit = emit
	if err := m.exec(f.Instructions, f.instructionAt, false); err != nil {
		return err
	}
	m.row.End = f.End
	if m.row.Loc < m.row.End {
		m.emit(m.row)
	}
	return nil
}
