package tracer

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"syscall"
	"unsafe"
)

// Linux constants the syscall package does not export.
const (
	ptraceGetFPRegs  = 14
	ptraceSetFPRegs  = 15
	ptraceGetSigInfo = 0x4202

	ptraceOExitKill      = 0x100000
	ptraceOTraceSeccomp  = 0x80
	ptraceEventSeccomp   = 7
	sysProcessVMReadv    = 310
	sysProcessVMWritev   = 311
	waitAll              = 0x40000000 // __WALL
	iovMax               = 1024
	siCodeSysSeccomp     = 1 // SYS_SECCOMP, si_code of SIGSYS raised by SECCOMP_RET_TRAP
	fpregsXmmOffset      = 160
	fpregsSize           = 512
	defaultPtraceOptions = ptraceOExitKill | ptraceOTraceSeccomp | syscall.PTRACE_O_TRACEFORK |
		syscall.PTRACE_O_TRACEVFORK | syscall.PTRACE_O_TRACECLONE | syscall.PTRACE_O_TRACEEXEC
)

type fpregs [fpregsSize]byte

func ptraceRaw(req, pid int, addr, data uintptr) error {
	_, _, e := syscall.Syscall6(syscall.SYS_PTRACE, uintptr(req), uintptr(pid), addr, data, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

func getFPRegs(pid int, fp *fpregs) error {
	return ptraceRaw(ptraceGetFPRegs, pid, 0, uintptr(unsafe.Pointer(fp)))
}

func setFPRegs(pid int, fp *fpregs) error {
	return ptraceRaw(ptraceSetFPRegs, pid, 0, uintptr(unsafe.Pointer(fp)))
}

// sigInfo is the part of siginfo_t the tracer reads.
type sigInfo struct {
	Signo, Code int32
	Addr        uint64 // si_addr (faults) or si_call_addr (SIGSYS)
	Syscall     int32  // si_syscall (SIGSYS)
	Arch        uint32 // si_arch (SIGSYS): AUDIT_ARCH_X86_64 or AUDIT_ARCH_I386 (int $0x80)
}

const auditArchX8664 = 0xc000003e

func getSigInfo(pid int) (sigInfo, error) {
	var raw [128]byte
	if err := ptraceRaw(ptraceGetSigInfo, pid, 0, uintptr(unsafe.Pointer(&raw[0]))); err != nil {
		return sigInfo{}, err
	}
	le := binary.LittleEndian
	return sigInfo{
		Signo:   int32(le.Uint32(raw[0:])),
		Code:    int32(le.Uint32(raw[8:])),
		Addr:    le.Uint64(raw[16:]),
		Syscall: int32(le.Uint32(raw[24:])),
		Arch:    le.Uint32(raw[28:]),
	}, nil
}

type iovec struct {
	base uintptr
	len  uint64
}

// span is a block of remote memory and its local buffer.
type span struct {
	addr uint64
	data []byte
}

// processVM transfers spans between the tracer and process pid with
// process_vm_readv / process_vm_writev, in batches of IOV_MAX.
func processVM(pid int, spans []span, write bool) error {
	nr := uintptr(sysProcessVMReadv)
	if write {
		nr = sysProcessVMWritev
	}
	for len(spans) > 0 {
		n := min(len(spans), iovMax)
		local := make([]iovec, 0, n)
		remote := make([]iovec, 0, n)
		var want uint64
		for _, s := range spans[:n] {
			if len(s.data) == 0 {
				continue
			}
			local = append(local, iovec{uintptr(unsafe.Pointer(&s.data[0])), uint64(len(s.data))})
			remote = append(remote, iovec{uintptr(s.addr), uint64(len(s.data))})
			want += uint64(len(s.data))
		}
		if len(local) > 0 {
			r, _, e := syscall.Syscall6(nr, uintptr(pid), uintptr(unsafe.Pointer(&local[0])), uintptr(len(local)),
				uintptr(unsafe.Pointer(&remote[0])), uintptr(len(remote)), 0)
			runtime.KeepAlive(spans)
			if e != 0 {
				return fmt.Errorf("tracer: process_vm (write=%v) at %#x: %w", write, spans[0].addr, e)
			}
			if uint64(r) != want {
				return fmt.Errorf("tracer: process_vm (write=%v): partial transfer %d of %d bytes", write, r, want)
			}
		}
		spans = spans[n:]
	}
	return nil
}
