package main

import (
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"time"
)

// With EQC_DEBUG_HEAP=FILE in the environment, every eqc process (the
// workers too) writes its heap profile to FILE.PID whenever its heap has
// grown past the largest it had at an earlier look (every second), so
// that a check that runs out of memory leaves the profile of its peak
// behind (`go tool pprof bin/eqc FILE.PID`).
func init() {
	startCPUProfile()
	file := os.Getenv("EQC_DEBUG_HEAP")
	if file == "" {
		return
	}
	go func() {
		var peak uint64
		for range time.Tick(time.Second) {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse <= peak {
				continue
			}
			peak = ms.HeapInuse
			f, err := os.Create(file + "." + strconv.Itoa(os.Getpid()))
			if err != nil {
				return
			}
			pprof.WriteHeapProfile(f)
			f.Close()
		}
	}()
}

// With EQC_DEBUG_CPU=FILE, every eqc process that ends normally (not one
// killed at its deadline: give the check room) writes its CPU profile to
// FILE.PID (`go tool pprof bin/eqc FILE.PID`); stopCPUProfile, called
// before the process exits, writes it.
func startCPUProfile() {
	file := os.Getenv("EQC_DEBUG_CPU")
	if file == "" {
		return
	}
	f, err := os.Create(file + "." + strconv.Itoa(os.Getpid()))
	if err != nil {
		return
	}
	if pprof.StartCPUProfile(f) != nil {
		f.Close()
		return
	}
	cpuProfile = f
}

var cpuProfile *os.File

func stopCPUProfile() {
	if cpuProfile != nil {
		pprof.StopCPUProfile()
		cpuProfile.Close()
	}
}
