package tracer

import (
	"encoding/binary"
	"fmt"
	"os"
)

const pageSize = 4096

// region is a writable mapping of the tracee and its contents at the
// hand-over point. Pages that were not yet populated then (known false) are
// zero; a run can only populate more pages, never fewer, so /proc/pid/pagemap
// tells which pages a restore must rewrite and which a read may skip.
type region struct {
	addr  uint64
	data  []byte
	known []bool // page populated at the snapshot
}

// populated reports, per page of [addr, addr+n·4096), whether the tracee has
// it mapped (present or swapped).
func populated(pagemap *os.File, addr uint64, n int) ([]bool, error) {
	buf := make([]byte, 8*n)
	if _, err := pagemap.ReadAt(buf, int64(addr/pageSize*8)); err != nil {
		return nil, fmt.Errorf("tracer: pagemap: %w", err)
	}
	out := make([]bool, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint64(buf[8*i:])&(3<<62) != 0
	}
	return out, nil
}

// pageSpans turns the pages of r selected by sel into merged spans over data.
func pageSpans(addr uint64, data []byte, sel []bool, spans []span) []span {
	for i := 0; i < len(sel); {
		if !sel[i] {
			i++
			continue
		}
		j := i
		for j < len(sel) && sel[j] {
			j++
		}
		lo, hi := i*pageSize, min(j*pageSize, len(data))
		spans = append(spans, span{addr + uint64(lo), data[lo:hi]})
		i = j
	}
	return spans
}

// snapshotRegion reads the populated pages of a writable mapping.
func (p *Process) snapshotRegion(start, end uint64) (region, error) {
	r := region{addr: start, data: make([]byte, end-start)}
	known, err := populated(p.pagemap, start, int((end-start)/pageSize))
	if err != nil {
		return r, err
	}
	r.known = known
	return r, processVM(p.pid, pageSpans(start, r.data, known, nil), false)
}

// restore rewrites every page that was populated at the snapshot or has been
// populated since.
func (p *Process) restore() error {
	var spans []span
	for _, r := range p.snap {
		now, err := populated(p.pagemap, r.addr, len(r.known))
		if err != nil {
			return err
		}
		for i := range now {
			now[i] = now[i] || r.known[i]
		}
		spans = pageSpans(r.addr, r.data, now, spans)
	}
	return processVM(p.pid, spans, true)
}

// readPopulated reads [addr, addr+len(buf)) into buf, leaving unpopulated
// pages (which read as zero) untouched; buf must be zero.
func (p *Process) readPopulated(addr uint64, buf []byte) error {
	if len(buf) == 0 {
		return nil
	}
	first := addr &^ (pageSize - 1)
	last := (addr + uint64(len(buf)) - 1) &^ (pageSize - 1)
	pop, err := populated(p.pagemap, first, int((last-first)/pageSize+1))
	if err != nil {
		return err
	}
	var spans []span
	for i, ok := range pop {
		if !ok {
			continue
		}
		lo := max(first+uint64(i)*pageSize, addr)
		hi := min(first+uint64(i+1)*pageSize, addr+uint64(len(buf)))
		spans = append(spans, span{lo, buf[lo-addr : hi-addr]})
	}
	return processVM(p.pid, spans, false)
}
