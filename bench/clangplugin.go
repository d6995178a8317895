package bench

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// keepsigSource is the LLVM pass plugin that stops clang's module passes
// from changing static functions' signatures (clangplugin/keepsig.cpp).
//
//go:embed clangplugin/keepsig.cpp
var keepsigSource []byte

var (
	keepsigMu    sync.Mutex
	keepsigBuilt = map[string]string{} // compiler version → plugin path
)

// KeepSignaturesFlags returns the flags that make clang keep every static
// function's signature and calling convention: the keepsig pass plugin
// (built on first use against llvm-16-dev into CacheDir, once per plugin
// source and compiler version) and -mllvm -enable-global-analyses=false,
// which stops GlobalsAA from keeping static globals in registers across
// calls. docs/compile-flags.md has the measurement behind it. gcc needs
// none (GCCFlags does the same for it); a missing llvm-config or clang++
// is a *MissingToolError.
func KeepSignaturesFlags(ctx context.Context, cc *Compiler) ([]string, error) {
	if cc.Family != Clang {
		return nil, nil
	}
	keepsigMu.Lock()
	defer keepsigMu.Unlock()
	if p, ok := keepsigBuilt[cc.Version]; ok {
		return keepsigFlags(p), nil
	}
	p, err := buildKeepsig(ctx, cc)
	if err != nil {
		return nil, err
	}
	keepsigBuilt[cc.Version] = p
	return keepsigFlags(p), nil
}

func keepsigFlags(plugin string) []string {
	return []string{"-fpass-plugin=" + plugin, "-mllvm", "-enable-global-analyses=false"}
}

// buildKeepsig compiles the plugin with the C++ compiler and LLVM headers
// of cc's major version, unless the cache has it.
func buildKeepsig(ctx context.Context, cc *Compiler) (string, error) {
	dumped, err := toolOutput(ctx, cc.Path, "-dumpversion")
	if err != nil {
		return "", fmt.Errorf("bench: %s -dumpversion: %w", cc.Path, err)
	}
	major, _, _ := strings.Cut(strings.TrimSpace(dumped), ".")
	llvmDev := "llvm-" + major + "-dev"
	var tried []string
	find := func(names ...string) string {
		for _, n := range names {
			if p, err := exec.LookPath(n); err == nil {
				return p
			}
			tried = append(tried, n+": not found")
		}
		return ""
	}
	config := find("llvm-config-"+major, "/usr/lib/llvm-"+major+"/bin/llvm-config")
	cxx := find("clang++-"+major, "/usr/lib/llvm-"+major+"/bin/clang++")
	if config == "" || cxx == "" {
		return "", &MissingToolError{Tool: llvmDev + " (for the clang keepsig plugin)", Tried: tried}
	}
	cxxflags, err := toolOutput(ctx, config, "--cxxflags")
	if err != nil {
		return "", &MissingToolError{Tool: llvmDev, Tried: []string{config + " --cxxflags: " + err.Error()}}
	}
	inc, err := toolOutput(ctx, config, "--includedir")
	if err == nil {
		_, err = os.Stat(filepath.Join(strings.TrimSpace(inc), "llvm", "Passes", "PassPlugin.h"))
	}
	if err != nil {
		return "", &MissingToolError{Tool: llvmDev, Tried: []string{"llvm/Passes/PassPlugin.h: " + err.Error()}}
	}

	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", cc.Version, cxxflags)
	h.Write(keepsigSource)
	dir := filepath.Join(CacheDir(), "clang-plugin")
	out := filepath.Join(dir, "keepsig-"+hex.EncodeToString(h.Sum(nil))[:16]+".so")
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*.so")
	if err != nil {
		return "", err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	srcTmp, err := os.CreateTemp(dir, ".tmp-*.cpp")
	if err != nil {
		return "", err
	}
	defer os.Remove(srcTmp.Name())
	if _, err := srcTmp.Write(keepsigSource); err != nil {
		srcTmp.Close()
		return "", err
	}
	srcTmp.Close()
	args := append([]string{"-shared", "-fPIC", "-O2"}, strings.Fields(cxxflags)...)
	args = append(args, "-x", "c++", srcTmp.Name(), "-o", tmp.Name())
	cmd := exec.CommandContext(ctx, cxx, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", &CompileError{Source: "bench/clangplugin/keepsig.cpp", Compiler: cxx, Command: append([]string{cxx}, args...),
			FirstError: firstErrorLine(stderr.String()), Stderr: stderr.String()}
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return "", err
	}
	return out, nil
}
