package depot

// Len is the number of distinct stacks.
func (d *Depot) Len() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.stacks)
}
