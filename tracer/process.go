package tracer

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Options configures a Process.
type Options struct {
	Timeout time.Duration // wall-clock limit of one run; default 5 s
}

// RunOptions selects the tracing mode of one run. The zero value (or nil)
// runs the function freely to its end.
type RunOptions struct {
	// Breakpoint mode: the state is recorded each time execution reaches one
	// of these addresses (block heads), up to MaxStates (default 100000)
	// states; past the bound the breakpoints are lifted and the run goes on
	// untraced (Result.StatesTruncated). OnBreak, if set, sees each recorded
	// state (ReadMem works inside it); returning false ends the run (Stopped).
	Breakpoints []uint64
	MaxStates   int
	OnBreak     func(s *State) bool
	// OneShot lifts each breakpoint at its first hit for the rest of the
	// run, so that a run records at most one state per address (the first
	// time it is reached): block coverage at one stop per block.
	OneShot bool

	// Single-step mode (Step != nil): Step is called after every instruction
	// with the states before and after it; returning false ends the run
	// (Stopped). At most MaxSteps (default 1,000,000) instructions run, then
	// the run ends with StepLimit. Not combinable with Breakpoints.
	Step     func(pre, post *State) bool
	MaxSteps int
	// BeforeStep, if set in single-step mode, is called before each
	// instruction with the state before it (Mem already holding the
	// accessed blocks; ReadMem works inside it). It may append blocks to
	// pre.Mem, filled with their current contents; the tracer reads the same
	// blocks again after the instruction into post.Mem.
	BeforeStep func(pre *State)
	// Light, in single-step mode, gives Step and BeforeStep the general
	// registers, rip and the flags only: no xmm registers and no memory
	// blocks (ReadMem still works), which makes a step several times
	// cheaper.
	Light bool

	Timeout time.Duration // overrides Options.Timeout
}

type breakpoint struct {
	orig byte
	lazy bool // may stay lifted until the next stop (see lazyBreakpoint)
}

// Process is a driver executable running under ptrace. All ptrace requests
// are made by one goroutine locked to its OS thread; the methods of Process
// hand work to it and may be called from any goroutine (one run at a time).
type Process struct {
	exe  *Executable
	opts Options

	reqs      chan func()
	quit      chan struct{}
	done      chan struct{}
	closeOnce sync.Once

	mu  sync.Mutex // pid and gen, read by the timeout timer and ReadMem
	pid int
	gen uint64

	// Owned by the ptrace goroutine.
	alive       bool
	needRestart bool
	resultBlock int      // the run's Vector.ResultBlock
	mem         *os.File // /proc/pid/mem, for breakpoint bytes in read-only text
	base        syscall.PtraceRegs
	baseFP      fpregs
	pagemap     *os.File // /proc/pid/pagemap, to skip pages never populated
	snap        []region // writable memory at the hand-over point
	bps         map[uint64]*breakpoint
	bpsIn       bool // breakpoints are currently written into the text
	starts      int
}

// Start runs the executable up to its driver's hand-over point and snapshots
// its writable memory.
func Start(exe *Executable, opts Options) (*Process, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = 5 * time.Second
	}
	p := &Process{exe: exe, opts: opts, reqs: make(chan func()), quit: make(chan struct{}),
		done: make(chan struct{}), bps: map[uint64]*breakpoint{}}
	go p.loop()
	var err error
	if e := p.do(func() { err = p.spawn() }); e != nil {
		return nil, e
	}
	if err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

func (p *Process) loop() {
	// Never unlocked: when this goroutine ends its thread exits, and with it
	// the ptrace relationship (the tracee gets PDEATHSIG / EXITKILL).
	runtime.LockOSThread()
	defer close(p.done)
	for {
		select {
		case f := <-p.reqs:
			f()
		case <-p.quit:
			p.kill()
			return
		}
	}
}

func (p *Process) do(f func()) error {
	ch := make(chan struct{})
	select {
	case p.reqs <- func() { defer close(ch); f() }:
	case <-p.done:
		return ErrProcessClosed
	}
	<-ch
	return nil
}

// Close kills the traced process and stops the ptrace goroutine.
func (p *Process) Close() error {
	p.closeOnce.Do(func() { close(p.quit) })
	<-p.done
	return nil
}

// Pid returns the current process id of the tracee (0 when none).
func (p *Process) Pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pid
}

// Starts counts how many times the executable was started (1 + restarts).
func (p *Process) Starts() int {
	n := 0
	p.do(func() { n = p.starts })
	return n
}

// ReadMem reads n bytes of the tracee's memory at addr. It may be called from
// any goroutine, including from OnBreak and Step callbacks, while the tracee
// is stopped.
func (p *Process) ReadMem(addr uint64, n int) ([]byte, error) {
	pid := p.Pid()
	if pid == 0 {
		return nil, errNotStopped
	}
	b := make([]byte, n)
	if err := processVM(pid, []span{{addr, b}}, false); err != nil {
		return nil, err
	}
	return b, nil
}

var driverExit = map[int]string{
	71: "cannot map the heap at its fixed address",
	72: "cannot map the stack at its fixed address",
	73: "cannot map the call log or the canonical key table at its fixed address",
	74: "setrlimit failed",
	75: "prctl(PR_SET_NO_NEW_PRIVS) failed",
	76: "seccomp filter installation failed",
}

func (p *Process) wait() (syscall.WaitStatus, error) {
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(p.pid, &ws, waitAll, nil)
		if err == syscall.EINTR {
			continue
		}
		return ws, err
	}
}

// spawnAttempts bounds how often spawn retries a driver that could not map
// its fixed regions: recent kernels place the brk area of a static
// executable at a random address that may overlap them, which another exec
// avoids.
const spawnAttempts = 8

func (p *Process) spawn() error {
	for i := 1; ; i++ {
		retry, err := p.spawnOnce()
		if !retry || i == spawnAttempts {
			return err
		}
		p.starts--
	}
}

func (p *Process) spawnOnce() (retry bool, _ error) {
	err := p.spawnExec()
	var se *StartError
	if errors.As(err, &se) && se.mapFailed {
		return true, err
	}
	return false, err
}

func (p *Process) spawnExec() error {
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer devnull.Close()
	fd := devnull.Fd()
	attr := &syscall.ProcAttr{Dir: "/", Env: []string{}, Files: []uintptr{fd, fd, fd},
		Sys: &syscall.SysProcAttr{Ptrace: true, Pdeathsig: syscall.SIGKILL, Setpgid: true}}
	pid, err := syscall.ForkExec(p.exe.Path, []string{p.exe.Path}, attr)
	if err != nil {
		return &StartError{Exe: p.exe.Path, Reason: err.Error()}
	}
	p.mu.Lock()
	p.pid = pid
	p.mu.Unlock()
	p.starts++
	fail := func(format string, args ...any) error {
		p.kill()
		return &StartError{Exe: p.exe.Path, Reason: fmt.Sprintf(format, args...)}
	}
	ws, err := p.wait()
	if err != nil || !ws.Stopped() || ws.StopSignal() != syscall.SIGTRAP {
		return fail("no exec stop (status %#x, %v)", uint32(ws), err)
	}
	if err := syscall.PtraceSetOptions(pid, defaultPtraceOptions); err != nil {
		return fail("PTRACE_SETOPTIONS: %v", err)
	}
	if err := syscall.PtraceCont(pid, 0); err != nil {
		return fail("PTRACE_CONT: %v", err)
	}
	if ws, err = p.wait(); err != nil {
		return fail("wait: %v", err)
	}
	if ws.Exited() {
		err := fail("driver exited with status %d: %s", ws.ExitStatus(), driverExit[ws.ExitStatus()])
		if st := ws.ExitStatus(); st >= 71 && st <= 73 {
			err.(*StartError).mapFailed = true
		}
		return err
	}
	if !ws.Stopped() || ws.StopSignal() != syscall.SIGTRAP || ws.TrapCause() != 0 {
		where := ""
		if ws.Stopped() {
			where = ", " + p.stopSite(ws.StopSignal())
		}
		return fail("driver did not reach its hand-over point (status %#x%s)", uint32(ws), where)
	}
	if err := syscall.PtraceGetRegs(pid, &p.base); err != nil {
		return fail("PTRACE_GETREGS: %v", err)
	}
	if p.base.Rip-1 != p.exe.Ready {
		return fail("driver stopped at %#x, not at its hand-over point %#x", p.base.Rip-1, p.exe.Ready)
	}
	if err := getFPRegs(pid, &p.baseFP); err != nil {
		return fail("PTRACE_GETFPREGS: %v", err)
	}
	// Every run starts with xmm0-15 zero, whatever libc's start-up left.
	clear(p.baseFP[fpregsXmmOffset : fpregsXmmOffset+256])
	if p.mem, err = os.OpenFile(fmt.Sprintf("/proc/%d/mem", pid), os.O_RDWR, 0); err != nil {
		return fail("%v", err)
	}
	if p.pagemap, err = os.Open(fmt.Sprintf("/proc/%d/pagemap", pid)); err != nil {
		return fail("%v", err)
	}
	// The stubs' table of canonical keys, in its read-only mapping
	// (/proc/pid/mem writes through the protection, as for breakpoints).
	if _, err := p.mem.WriteAt(p.exe.canon.encode(), CanonAddr); err != nil {
		return fail("canonical key table: %v", err)
	}
	if err := p.snapshot(); err != nil {
		return fail("snapshot: %v", err)
	}
	p.alive, p.needRestart, p.bpsIn = true, false, false
	return nil
}

// snapshot records every writable mapping except the call log: all of a
// file-backed one (the executable's .data: its pages not yet populated read
// as the file's bytes, not as zero), the populated pages of an anonymous one.
func (p *Process) snapshot() error {
	f, err := os.Open(fmt.Sprintf("/proc/%d/maps", p.pid))
	if err != nil {
		return err
	}
	defer f.Close()
	p.snap = p.snap[:0]
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 || len(fields[1]) < 2 || fields[1][1] != 'w' {
			continue
		}
		lo, hi, ok := strings.Cut(fields[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || start == CallLogAddr {
			continue
		}
		// Fields: address, perms, offset, device, inode, path; a
		// nonzero inode is a file-backed mapping.
		file := len(fields) >= 5 && fields[4] != "0"
		r, err := p.snapshotRegion(start, end, file)
		if err != nil {
			return err
		}
		p.snap = append(p.snap, r)
	}
	return sc.Err()
}

// kill ends the tracee, if any, and reaps it.
func (p *Process) kill() {
	p.mu.Lock()
	pid := p.pid
	p.pid = 0
	p.gen++
	p.mu.Unlock()
	if pid > 0 {
		syscall.Kill(pid, syscall.SIGKILL)
		var ws syscall.WaitStatus
		for {
			_, err := syscall.Wait4(pid, &ws, waitAll, nil)
			if err == syscall.EINTR {
				continue
			}
			if err != nil || ws.Exited() || ws.Signaled() {
				break
			}
		}
	}
	p.closeFiles()
	p.alive, p.bpsIn = false, false
}

func (p *Process) closeFiles() {
	for _, f := range []**os.File{&p.mem, &p.pagemap} {
		if *f != nil {
			(*f).Close()
			*f = nil
		}
	}
}

func (p *Process) poke(addr uint64, b byte) error {
	_, err := p.mem.WriteAt([]byte{b}, int64(addr))
	return err
}

// setBreakpoints makes addrs the breakpoint set (written into the text
// lazily, at the next run).
func (p *Process) setBreakpoints(addrs []uint64) error {
	same := len(addrs) == len(p.bps)
	for _, a := range addrs {
		if _, ok := p.bps[a]; !ok {
			same = false
		}
	}
	if same {
		return nil
	}
	if err := p.liftBreakpoints(); err != nil {
		return err
	}
	p.bps = map[uint64]*breakpoint{}
	for _, a := range addrs {
		code := p.exe.code(a, 1)
		if len(code) == 0 {
			return &BadVectorError{Reason: fmt.Sprintf("breakpoint %#x outside the executable's code", a)}
		}
		p.bps[a] = &breakpoint{orig: code[0]}
	}
	for a, b := range p.bps {
		b.lazy = p.lazyBreakpoint(a)
	}
	return nil
}

func (p *Process) insertBreakpoints() error {
	if p.bpsIn {
		return nil
	}
	for a := range p.bps {
		if err := p.poke(a, 0xcc); err != nil {
			return err
		}
	}
	p.bpsIn = true
	return nil
}

func (p *Process) liftBreakpoints() error {
	if !p.bpsIn || !p.alive {
		p.bpsIn = false
		return nil
	}
	for a, b := range p.bps {
		if err := p.poke(a, b.orig); err != nil {
			return err
		}
	}
	p.bpsIn = false
	return nil
}

// Call runs the function called name on v; see Run.
func (p *Process) Call(name string, v Vector, o *RunOptions) (*Result, error) {
	fn, err := p.exe.FuncAddr(name)
	if err != nil {
		return nil, err
	}
	return p.Run(fn, v, o)
}

// Run restores the snapshot, sets up v per the SysV ABI, runs the function at
// fn until it returns to the sentinel, faults, attempts a system call, times
// out or hits a bound, and collects the observables. A run that ends the
// process (timeout, death) or may have damaged it (fault) makes the next run
// restart it transparently. The error is for bad input or tracer failures,
// not for the code's misbehaviour, which is the Outcome.
func (p *Process) Run(fn uint64, v Vector, o *RunOptions) (*Result, error) {
	if o == nil {
		o = &RunOptions{}
	}
	var res *Result
	var err error
	if e := p.do(func() { res, err = p.run(fn, &v, o) }); e != nil {
		return nil, e
	}
	return res, err
}

func (p *Process) run(fn uint64, v *Vector, o *RunOptions) (*Result, error) {
	start := time.Now()
	res := &Result{}
	if o.Step != nil && len(o.Breakpoints) > 0 {
		return nil, &BadVectorError{Reason: "single-step and breakpoint modes are exclusive"}
	}
	if !p.alive || p.needRestart {
		p.kill()
		if err := p.spawn(); err != nil {
			return nil, err
		}
		res.Restarted = true
	}
	if err := p.setBreakpoints(o.Breakpoints); err != nil {
		return nil, err
	}
	if err := p.insertBreakpoints(); err != nil {
		return nil, err
	}
	regs, fp, err := p.prepare(fn, v)
	if err != nil {
		return nil, err
	}
	timeout := p.opts.Timeout
	if o.Timeout > 0 {
		timeout = o.Timeout
	}
	p.mu.Lock()
	gen := p.gen
	p.mu.Unlock()
	var timedOut bool
	timer := time.AfterFunc(timeout, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.gen == gen && p.pid > 0 {
			timedOut = true
			syscall.Kill(p.pid, syscall.SIGKILL)
		}
	})
	if o.Step != nil {
		err = p.stepLoop(res, regs, fp, o, start, timeout)
	} else {
		err = p.contLoop(res, o)
	}
	timer.Stop()
	p.mu.Lock()
	p.gen++
	fired := timedOut
	p.mu.Unlock()
	if fired {
		if p.alive {
			p.needRestart = true // killed (after the run ended, or while collecting): it is dying
		}
		if !p.alive || err != nil {
			// An error reading the killed process is the timeout's doing.
			res.Outcome, err = Timeout, nil
		}
	}
	res.Wall = time.Since(start)
	return res, err
}

// prepare restores memory and sets the registers for a run of fn on v.
// ResultRegion names the block a function returning a struct in memory
// writes it to (Vector.ResultBlock) in Result.Memory: no C identifier, so
// no global's name.
const ResultRegion = "result-block"

// MaxResultBlock bounds Vector.ResultBlock: the block lies in the 4 KiB
// above the entry rsp's page (entryRSP), past the stack arguments.
const MaxResultBlock = 1024

// ResultBlockAddr is where a run puts the block of a struct returned in
// memory: near the top of the stack, above the return sentinel and the
// stack arguments, as a caller's local would be.
func ResultBlockAddr(stackSize uint64) uint64 { return StackAddr + stackSize - 2048 }

// entryRSP is the stack pointer a run starts the function with: below the
// return sentinel and nstack stack arguments, near the top of the fixed
// stack, rsp+8 16-byte aligned.
func entryRSP(stackSize uint64, nstack int) uint64 {
	top := uint64(StackAddr) + stackSize - 4096
	return ((top - 8*uint64(nstack)) &^ 15) - 8
}

func (p *Process) prepare(fn uint64, v *Vector) (*syscall.PtraceRegs, *fpregs, error) {
	writes := []span{{CallLogAddr, make([]byte, 16)}}
	for _, m := range v.Mem {
		addr := m.Addr
		if m.Symbol != "" {
			a, size, err := p.exe.DataAddr(m.Symbol)
			if err != nil {
				return nil, nil, err
			}
			if size > 0 && m.Offset+uint64(len(m.Data)) > size {
				return nil, nil, &BadVectorError{Reason: fmt.Sprintf("%d bytes at %s+%d overflow its %d bytes", len(m.Data), m.Symbol, m.Offset, size)}
			}
			addr = a + m.Offset
		}
		if !p.writable(addr, uint64(len(m.Data))) {
			return nil, nil, &BadVectorError{Reason: fmt.Sprintf("%d bytes at %#x are outside the writable memory", len(m.Data), addr)}
		}
		writes = append(writes, span{addr, m.Data})
	}
	var stackArgs []uint64
	if len(v.Args) > 6 {
		stackArgs = v.Args[6:]
	}
	rsp := entryRSP(p.exe.StackSize, len(stackArgs))
	frame := make([]byte, 8+8*len(stackArgs))
	binary.LittleEndian.PutUint64(frame, p.exe.Sentinel)
	for i, a := range stackArgs {
		binary.LittleEndian.PutUint64(frame[8+8*i:], a)
	}
	writes = append(writes, span{rsp, frame})
	if v.ResultBlock > MaxResultBlock {
		return nil, nil, &BadVectorError{Reason: fmt.Sprintf("a %d-byte result block is over %d bytes", v.ResultBlock, MaxResultBlock)}
	}
	p.resultBlock = max(v.ResultBlock, 0)
	if p.resultBlock > 0 {
		writes = append(writes, span{ResultBlockAddr(p.exe.StackSize), make([]byte, p.resultBlock)})
	}
	if err := p.restore(); err != nil {
		return nil, nil, err
	}
	if err := processVM(p.pid, writes, true); err != nil {
		return nil, nil, err
	}
	regs := p.base
	setArgRegs(&regs, v.Args)
	if p.resultBlock > 0 {
		regs.Rdi = ResultBlockAddr(p.exe.StackSize)
	}
	regs.Rsp, regs.Rip, regs.Rax = rsp, fn, 0
	regs.Orig_rax = ^uint64(0)
	regs.Eflags &^= 0x100 // TF
	if err := syscall.PtraceSetRegs(p.pid, &regs); err != nil {
		return nil, nil, err
	}
	fp := p.baseFP
	for i, f := range v.FloatArgs {
		if i < 8 {
			binary.LittleEndian.PutUint64(fp[fpregsXmmOffset+16*i:], f)
		}
	}
	if err := setFPRegs(p.pid, &fp); err != nil {
		return nil, nil, err
	}
	return &regs, &fp, nil
}

func (p *Process) writable(addr, n uint64) bool {
	if addr >= CallLogAddr && addr < CallLogAddr+CallLogSize {
		return false
	}
	if addr+n < addr {
		return false
	}
	// A range may span adjacent mappings (a global straddling the
	// file-backed .data/.bss page and the anonymous bss after it).
	for covered := true; covered; {
		covered = false
		for _, s := range p.snap {
			if addr >= s.addr && addr < s.addr+uint64(len(s.data)) {
				end := s.addr + uint64(len(s.data))
				if addr+n <= end {
					return true
				}
				n -= end - addr
				addr, covered = end, true
				break
			}
		}
	}
	return n == 0
}

// contLoop runs with PTRACE_CONT, handling breakpoints, until the run ends.
func (p *Process) contLoop(res *Result, o *RunOptions) error {
	maxStates := o.MaxStates
	if maxStates <= 0 {
		maxStates = 100000
	}
	var pending uint64 // a lazy breakpoint lifted at its last hit
	var spent []uint64 // one-shot breakpoints lifted during this run
	defer func() {
		if pending != 0 && p.alive {
			p.poke(pending, 0xcc)
		}
		for _, a := range spent {
			if p.alive && p.bpsIn {
				p.poke(a, 0xcc)
			}
		}
	}()
	var regs syscall.PtraceRegs
	var fp fpregs
	for {
		if err := syscall.PtraceCont(p.pid, 0); err != nil {
			return err
		}
		ws, err := p.wait()
		if err != nil {
			return err
		}
		if !ws.Stopped() || ws.StopSignal() != syscall.SIGTRAP || ws.TrapCause() != 0 {
			return p.ended(res, ws)
		}
		if err := syscall.PtraceGetRegs(p.pid, &regs); err != nil {
			return err
		}
		at := regs.Rip - 1
		bp := p.bps[at]
		if at == p.exe.Sentinel || at == p.exe.NoReturn || bp == nil || !p.bpsIn {
			return p.ended(res, ws)
		}
		if pending != 0 && pending != at {
			if err := p.poke(pending, 0xcc); err != nil {
				return err
			}
			pending = 0
		}
		regs.Rip = at
		if len(res.States) >= maxStates {
			res.StatesTruncated = true
			if err := p.liftBreakpoints(); err != nil {
				return err
			}
			pending = 0
			if err := syscall.PtraceSetRegs(p.pid, &regs); err != nil {
				return err
			}
			continue
		}
		if err := getFPRegs(p.pid, &fp); err != nil {
			return err
		}
		st := stateFrom(&regs, &fp)
		res.States = append(res.States, st)
		if o.OnBreak != nil && !o.OnBreak(&res.States[len(res.States)-1]) {
			res.Outcome = Stopped
			if err := syscall.PtraceSetRegs(p.pid, &regs); err != nil {
				return err
			}
			return p.collect(res, &regs, &fp)
		}
		if err := p.poke(at, bp.orig); err != nil {
			return err
		}
		if err := syscall.PtraceSetRegs(p.pid, &regs); err != nil {
			return err
		}
		if o.OneShot {
			spent = append(spent, at)
			continue
		}
		if bp.lazy {
			pending = at
			continue
		}
		// Step over the original instruction, then put the int3 back.
		if err := syscall.PtraceSingleStep(p.pid); err != nil {
			return err
		}
		if ws, err = p.wait(); err != nil {
			return err
		}
		if !ws.Stopped() || ws.StopSignal() != syscall.SIGTRAP || ws.TrapCause() != 0 {
			pending = at
			return p.ended(res, ws)
		}
		if err := p.poke(at, 0xcc); err != nil {
			return err
		}
	}
}

// ended classifies the stop or exit ws that ended a run and collects the
// observables.
func (p *Process) ended(res *Result, ws syscall.WaitStatus) error {
	if ws.Exited() || ws.Signaled() {
		p.mu.Lock()
		p.pid = 0
		p.mu.Unlock()
		p.alive = false
		res.Outcome = Exited
		if ws.Exited() {
			res.ExitStatus = ws.ExitStatus()
		} else {
			res.Signal = ws.Signal()
		}
		p.closeFiles()
		return nil
	}
	if !ws.Stopped() {
		return fmt.Errorf("tracer: unexpected wait status %#x", uint32(ws))
	}
	var regs syscall.PtraceRegs
	var fp fpregs
	if err := syscall.PtraceGetRegs(p.pid, &regs); err != nil {
		return err
	}
	if err := getFPRegs(p.pid, &fp); err != nil {
		return err
	}
	sig := ws.StopSignal()
	switch {
	case sig == syscall.SIGTRAP && ws.TrapCause() != 0:
		// A ptrace event: fork, clone, exec or a seccomp stop. The filter
		// traps every system call before it runs, so this cannot happen;
		// if it does, kill whatever was created and start afresh.
		res.Outcome = SyscallDenied
		res.Syscall = int(regs.Orig_rax)
		res.SyscallName = SyscallName(res.Syscall)
		res.SyscallRip = regs.Rip
		switch ws.TrapCause() {
		case syscall.PTRACE_EVENT_FORK, syscall.PTRACE_EVENT_VFORK, syscall.PTRACE_EVENT_CLONE:
			if child, err := syscall.PtraceGetEventMsg(p.pid); err == nil && child > 0 {
				syscall.Kill(int(child), syscall.SIGKILL)
				var cws syscall.WaitStatus
				syscall.Wait4(int(child), &cws, waitAll, nil)
			}
		}
		p.needRestart = true
	case sig == syscall.SIGTRAP && regs.Rip-1 == p.exe.NoReturn:
		res.Outcome = EndedInCall
		regs.Rip--
	case sig == syscall.SIGTRAP && regs.Rip-1 == p.exe.Sentinel:
		res.Outcome = Returned
		res.Rax, res.Rdx = regs.Rax, regs.Rdx
		regs.Rip-- // report the state as at the sentinel
		s := stateFrom(&regs, &fp)
		res.Xmm0, res.Xmm1 = s.Xmm[0], s.Xmm[1]
	case sig == syscall.SIGSYS:
		si, err := getSigInfo(p.pid)
		if err != nil {
			return err
		}
		if si.Code != siCodeSysSeccomp {
			p.fault(res, &regs, sig, si)
			break
		}
		// SECCOMP_RET_TRAP: the kernel refused the call without running
		// it, so the process is intact and stays in use.
		res.Outcome = SyscallDenied
		res.Syscall = int(si.Syscall)
		res.SyscallName = SyscallName(res.Syscall)
		if si.Arch != auditArchX8664 {
			res.SyscallName = fmt.Sprintf("i386:%d", res.Syscall) // int $0x80
		}
		res.SyscallRip = si.Addr
	default:
		si, err := getSigInfo(p.pid)
		if err != nil {
			return err
		}
		p.fault(res, &regs, sig, si)
	}
	return p.collect(res, &regs, &fp)
}

func (p *Process) fault(res *Result, regs *syscall.PtraceRegs, sig syscall.Signal, si sigInfo) {
	res.Outcome = Fault
	res.Signal = sig
	res.SigCode = int(si.Code)
	res.FaultRip = regs.Rip
	switch sig {
	case syscall.SIGSEGV, syscall.SIGBUS, syscall.SIGILL, syscall.SIGFPE:
		res.FaultAddr = si.Addr
	case syscall.SIGTRAP:
		res.FaultAddr = regs.Rip - 1
	}
	p.needRestart = true
}

// collect reads the final state, call log and observable memory of a
// stopped tracee.
func (p *Process) collect(res *Result, regs *syscall.PtraceRegs, fp *fpregs) error {
	res.Final = stateFrom(regs, fp)
	head := make([]byte, 4096)
	if err := processVM(p.pid, []span{{CallLogAddr, head}}, false); err != nil {
		return err
	}
	n := binary.LittleEndian.Uint64(head)
	res.CallsTruncated = binary.LittleEndian.Uint64(head[8:]) != 0
	n = min(n, callLogCapacity)
	if need := 8 * (callLogHeaderWords + n*callLogEntryWords); need > uint64(len(head)) {
		head = make([]byte, need)
		if err := processVM(p.pid, []span{{CallLogAddr, head}}, false); err != nil {
			return err
		}
	}
	for i := uint64(0); i < n; i++ {
		e := head[8*(callLogHeaderWords+i*callLogEntryWords):]
		id := binary.LittleEndian.Uint64(e)
		c := Call{ID: id, Name: p.exe.StubName(id), N: int(binary.LittleEndian.Uint64(e[8:])), Site: binary.LittleEndian.Uint64(e[16:])}
		for j := 0; j < min(c.N, CallLogMaxArgs); j++ {
			c.Args = append(c.Args, binary.LittleEndian.Uint64(e[24+8*j:]))
		}
		res.Calls = append(res.Calls, c)
	}
	for _, g := range p.exe.Globals {
		res.Memory = append(res.Memory, Region{Name: g.Name, Addr: g.Addr, Data: make([]byte, g.Size)})
	}
	res.Memory = append(res.Memory, Region{Name: "heap", Addr: HeapAddr, Data: make([]byte, p.exe.HeapSize)})
	res.Memory = append(res.Memory, Region{Name: stubObjects, Addr: ArenaAddr, Data: make([]byte, ArenaSize)})
	if p.resultBlock > 0 {
		res.Memory = append(res.Memory, Region{Name: ResultRegion, Addr: ResultBlockAddr(p.exe.StackSize), Data: make([]byte, p.resultBlock)})
	}
	for _, m := range res.Memory {
		if err := p.readPopulated(m.Addr, m.Data); err != nil {
			return err
		}
	}
	return nil
}

// stopSite says where the stopped process is: the signal, rip and its
// function, and the functions of the return addresses in the 32 words
// above rsp (a rough backtrace, for a driver that fails before its
// hand-over point).
func (p *Process) stopSite(sig syscall.Signal) string {
	var regs syscall.PtraceRegs
	if syscall.PtraceGetRegs(p.pid, &regs) != nil {
		return sig.String()
	}
	out := fmt.Sprintf("%v at rip %#x%s", sig, regs.Rip, p.exe.symbolAt(regs.Rip))
	var callers []string
	for k := uint64(0); k < 256; k += 8 {
		var w [8]byte
		if n, err := syscall.PtracePeekData(p.pid, uintptr(regs.Rsp+k), w[:]); err == nil && n == 8 {
			if sym := p.exe.symbolAt(binary.LittleEndian.Uint64(w[:])); sym != "" {
				callers = append(callers, strings.TrimPrefix(sym, " in "))
			}
		}
	}
	if len(callers) > 0 {
		out += ", called from " + strings.Join(callers, ", ")
	}
	return out
}
