package tracer

import (
	"encoding/binary"
	"fmt"
	"os"
)

const pageSize = 4096

// region is a writable mapping of the tracee and its contents at the
// hand-over point. known says which pages the snapshot recorded: every page
// of a file-backed mapping (the executable's .data and the file-backed head
// of its .bss, where a page nothing has touched yet is not populated but
// reads as the file's bytes, not as zero) and the populated pages of an
// anonymous one. The other pages are zero: a run can only populate more
// pages, never fewer, so /proc/pid/pagemap tells which of them a restore
// must rewrite (with zeros) and which a read may skip.
type region struct {
	addr  uint64
	data  []byte
	known []bool // page recorded at the snapshot (populated, or file-backed)
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

// snapshotRegion reads a writable mapping: every page of a file-backed one
// (reading faults in the pages not yet populated, with the file's bytes),
// the populated pages of an anonymous one.
func (p *Process) snapshotRegion(start, end uint64, file bool) (region, error) {
	n := int((end - start) / pageSize)
	r := region{addr: start, data: make([]byte, end-start)}
	if file {
		r.known = make([]bool, n)
		for i := range r.known {
			r.known[i] = true
		}
		if err := processVM(p.pid, []span{{start, r.data}}, false); err == nil {
			return r, nil
		}
		// A page that cannot be read (beyond the end of the file) cannot
		// be read by the code either: leave it out, and read the rest.
		for i := range r.known {
			pg := r.data[i*pageSize : (i+1)*pageSize]
			if processVM(p.pid, []span{{start + uint64(i)*pageSize, pg}}, false) != nil {
				r.known[i] = false
				clear(pg)
			}
		}
		return r, nil
	}
	known, err := populated(p.pagemap, start, n)
	if err != nil {
		return r, err
	}
	r.known = known
	return r, processVM(p.pid, pageSpans(start, r.data, known, nil), false)
}

// recorded reports, per page of [addr, addr+n·4096), whether the snapshot
// recorded its contents.
func (p *Process) recorded(addr uint64, n int) []bool {
	out := make([]bool, n)
	for _, r := range p.snap {
		end := r.addr + uint64(len(r.known))*pageSize
		if addr+uint64(n)*pageSize <= r.addr || addr >= end {
			continue
		}
		for i := range out {
			if a := addr + uint64(i)*pageSize; a >= r.addr && a < end {
				out[i] = out[i] || r.known[(a-r.addr)/pageSize]
			}
		}
	}
	return out
}

// restore rewrites every page the snapshot recorded and every page
// populated since (with zeros, when it was an anonymous page not yet
// populated at the snapshot).
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

// readPopulated reads [addr, addr+len(buf)) into buf, leaving the pages
// that are not populated and whose contents the snapshot did not record
// (anonymous pages never touched, which read as zero) untouched; buf must
// be zero. A page the snapshot recorded is always read: a file-backed one
// may read as the file's bytes without being populated.
func (p *Process) readPopulated(addr uint64, buf []byte) error {
	if len(buf) == 0 {
		return nil
	}
	first := addr &^ (pageSize - 1)
	last := (addr + uint64(len(buf)) - 1) &^ (pageSize - 1)
	n := int((last-first)/pageSize + 1)
	pop, err := populated(p.pagemap, first, n)
	if err != nil {
		return err
	}
	rec := p.recorded(first, n)
	var spans []span
	for i, ok := range pop {
		if !ok && !rec[i] {
			continue
		}
		lo := max(first+uint64(i)*pageSize, addr)
		hi := min(first+uint64(i+1)*pageSize, addr+uint64(len(buf)))
		spans = append(spans, span{lo, buf[lo-addr : hi-addr]})
	}
	return processVM(p.pid, spans, false)
}
