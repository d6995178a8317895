package bench

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// specFiles holds the recipes of the open SPEC-like suite, one per program.
//
//go:embed spec/*.txt
var specFiles embed.FS

// SpecSuite is the name that stands for every recipe at once.
const SpecSuite = "spec"

// Recipe is how one real C program becomes a suite: the Debian source
// package its upstream tarball comes from, shell commands that prepare the
// unpacked tree (configure, generated headers), the directory of the
// sources within it, and suite manifest lines over that directory.
type Recipe struct {
	Name    string   // the program; the suite's name
	Package string   // Debian source package
	Dir     string   // directory of the sources in the unpacked tree ("." by default)
	Prepare []string // run once with sh -c in the tree's top directory
	// manifest is the recipe with its own keys blanked out, so that the
	// manifest parser reports the recipe's line numbers.
	manifest []byte
	where    string
}

// RecipeError reports a recipe that cannot be read, fetched or prepared.
type RecipeError struct {
	Recipe string
	Step   string // "read", "fetch", "unpack", "prepare"
	Msg    string
}

func (e *RecipeError) Error() string {
	return fmt.Sprintf("bench: recipe %s: %s: %s", e.Recipe, e.Step, e.Msg)
}

// RecipeNames lists the built-in recipes, sorted.
func RecipeNames() []string {
	entries, err := fs.ReadDir(specFiles, "spec")
	if err != nil {
		panic(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".txt"))
	}
	sort.Strings(names)
	return names
}

// BuiltinRecipe returns the built-in recipe of a program.
func BuiltinRecipe(name string) (*Recipe, error) {
	data, err := fs.ReadFile(specFiles, "spec/"+name+".txt")
	if err != nil {
		return nil, &UnknownSuiteError{Name: name, Known: append(BuiltinNames(), append([]string{SpecSuite}, RecipeNames()...)...)}
	}
	r, err := ParseRecipe(name, "builtin:spec/"+name+".txt", data)
	if err != nil {
		panic(fmt.Sprintf("bench: built-in recipe %s is broken: %v", name, err))
	}
	return r, nil
}

// ParseRecipe reads a recipe: the keys of a suite manifest (doc.go) over
// the sources directory, and
//
//	package NAME     the Debian source package (required)
//	dir PATH         the sources' directory in the unpacked tree
//	prepare CMD...   a shell command run in the tree's top directory (repeatable)
//
// The manifest keys are checked when the tree is there (Suite.Prepare).
func ParseRecipe(name, where string, data []byte) (*Recipe, error) {
	r := &Recipe{Name: name, Dir: ".", where: where}
	var rest bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(data))
	lineNo := 0
	for sc.Scan() {
		lineNo++
		text := sc.Text()
		body, _, _ := strings.Cut(text, "#")
		key, value, _ := strings.Cut(strings.TrimSpace(body), " ")
		value = strings.TrimSpace(value)
		switch key {
		case "package", "dir", "prepare":
			if value == "" {
				return nil, &ManifestError{Path: where, Line: lineNo, Msg: fmt.Sprintf("%q needs a value", key)}
			}
			switch key {
			case "package":
				r.Package = value
			case "dir":
				clean := path.Clean(value)
				if path.IsAbs(clean) || strings.HasPrefix(clean, "..") {
					return nil, &ManifestError{Path: where, Line: lineNo, Msg: fmt.Sprintf("dir %q must lie inside the tree", value)}
				}
				r.Dir = clean
			case "prepare":
				r.Prepare = append(r.Prepare, value)
			}
			rest.WriteString("\n")
		default:
			rest.WriteString(text + "\n")
		}
	}
	if r.Package == "" {
		return nil, &ManifestError{Path: where, Msg: "a recipe needs a package line"}
	}
	if !bytes.Contains(rest.Bytes(), []byte("static-functions")) {
		// Most of a real program's functions are static.
		rest.WriteString("static-functions yes\n")
	}
	r.manifest = rest.Bytes()
	return r, nil
}

// Suite returns the recipe's suite: sources and flags are read from the
// manifest lines once Fetch has fetched and prepared the tree. Static
// functions are checked unless the recipe says static-functions no.
func (r *Recipe) Suite() *Suite {
	return &Suite{Name: r.Name, Matrix: DefaultMatrix(), recipe: r, Program: true}
}

// SpecRoot is where recipes' sources are fetched and prepared, one
// directory per package, shared by every sweep on the machine.
func SpecRoot() string { return filepath.Join(CacheDir(), "spec") }

// prepareRecipe fetches and prepares the recipe's tree (once: a finished
// tree is marked ready with the hash of its prepare commands) and reads
// the manifest lines over its sources directory. log receives one line per
// step that does work.
func (s *Suite) prepareRecipe(ctx context.Context, log io.Writer) error {
	r := s.recipe
	root := filepath.Join(SpecRoot(), r.Package)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	unlock, err := lockDir(root)
	if err != nil {
		return err
	}
	defer unlock()
	top, err := r.tree(ctx, root, log)
	if err != nil {
		return err
	}
	dir := filepath.Join(top, filepath.FromSlash(r.Dir))
	loaded, err := loadSuiteManifest(os.DirFS(dir), r.Name, dir, r.where, r.manifest)
	if err != nil {
		return err
	}
	loaded.recipe = r
	loaded.Dir = dir
	loaded.Program = true
	*s = *loaded
	return nil
}

// tree returns the prepared top directory under root, fetching, unpacking
// and preparing it if it is not ready.
func (r *Recipe) tree(ctx context.Context, root string, log io.Writer) (string, error) {
	h := sha256.New()
	for _, c := range r.Prepare {
		fmt.Fprintf(h, "%d:%s;", len(c), c)
	}
	stamp := hex.EncodeToString(h.Sum(nil))[:16]
	readyFile := filepath.Join(root, "ready-"+stamp)
	if top, err := os.ReadFile(readyFile); err == nil {
		if info, err := os.Stat(string(top)); err == nil && info.IsDir() {
			return string(top), nil
		}
	}
	tarball, err := r.fetch(ctx, root, log)
	if err != nil {
		return "", err
	}
	work := filepath.Join(root, "tree-"+stamp)
	if err := os.RemoveAll(work); err != nil {
		return "", err
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		return "", err
	}
	fmt.Fprintf(log, "eqc: %s: unpacking %s\n", r.Name, filepath.Base(tarball))
	if out, err := exec.CommandContext(ctx, "tar", "-xf", tarball, "-C", work).CombinedOutput(); err != nil {
		return "", &RecipeError{Recipe: r.Name, Step: "unpack", Msg: fmt.Sprintf("tar -xf %s: %v: %s", tarball, err, lastLines(string(out), 3))}
	}
	entries, err := os.ReadDir(work)
	if err != nil {
		return "", err
	}
	top := work
	if len(entries) == 1 && entries[0].IsDir() {
		top = filepath.Join(work, entries[0].Name())
	}
	for _, c := range r.Prepare {
		fmt.Fprintf(log, "eqc: %s: %s\n", r.Name, c)
		cmd := exec.CommandContext(ctx, "sh", "-c", c)
		cmd.Dir = top
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", &RecipeError{Recipe: r.Name, Step: "prepare", Msg: fmt.Sprintf("%s: %v: %s", c, err, lastLines(string(out), 5))}
		}
	}
	if err := os.WriteFile(readyFile, []byte(top), 0o644); err != nil {
		return "", err
	}
	return top, nil
}

// fetch downloads the package's sources with apt-get from the Debian
// release this machine runs, through a private deb-src list under root's
// parent (the system's apt configuration is not touched), and returns the
// upstream (orig) tarball. Debian's own patches are not applied: the suite
// is the upstream program.
func (r *Recipe) fetch(ctx context.Context, root string, log io.Writer) (string, error) {
	dl := filepath.Join(root, "download")
	if t, err := origTarball(dl, r.Package); err == nil {
		return t, nil
	}
	apt := filepath.Join(filepath.Dir(root), "apt")
	for _, d := range []string{filepath.Join(apt, "lists", "partial"), filepath.Join(apt, "cache", "archives", "partial"), dl} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", err
		}
	}
	list := filepath.Join(apt, "sources.list")
	line := fmt.Sprintf("deb-src http://deb.debian.org/debian %s main\n", debianCodename())
	if err := os.WriteFile(list, []byte(line), 0o644); err != nil {
		return "", err
	}
	opts := []string{
		"-o", "Dir::Etc::SourceList=" + list, "-o", "Dir::Etc::SourceParts=/dev/null",
		"-o", "Dir::State::Lists=" + filepath.Join(apt, "lists"), "-o", "Dir::Cache=" + filepath.Join(apt, "cache"),
		"-o", "Debug::NoLocking=1", "-q",
	}
	run := func(dir string, args ...string) error {
		cmd := exec.CommandContext(ctx, "apt-get", append(opts, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			return &RecipeError{Recipe: r.Name, Step: "fetch", Msg: fmt.Sprintf("apt-get %s: %v: %s", strings.Join(args, " "), err, lastLines(string(out), 3))}
		}
		return nil
	}
	if lists, _ := filepath.Glob(filepath.Join(apt, "lists", "*Sources*")); len(lists) == 0 {
		fmt.Fprintf(log, "eqc: reading Debian's source package index (%s)\n", strings.TrimSpace(line))
		if err := run(apt, "update"); err != nil {
			return "", err
		}
	}
	fmt.Fprintf(log, "eqc: %s: apt-get source --download-only %s\n", r.Name, r.Package)
	fetchErr := run(dl, "source", "--download-only", r.Package)
	// Only the orig tarball is used: a Debian part the mirror no longer
	// has (gnugo's) fails apt-get but not the recipe.
	t, err := origTarball(dl, r.Package)
	if err != nil {
		if fetchErr != nil {
			return "", fetchErr
		}
		return "", &RecipeError{Recipe: r.Name, Step: "fetch", Msg: err.Error()}
	}
	return t, nil
}

// origTarball finds PACKAGE_VERSION.orig.tar.* in dir.
func origTarball(dir, pkg string) (string, error) {
	matches, _ := filepath.Glob(filepath.Join(dir, pkg+"_*.orig.tar.*"))
	for _, m := range matches {
		if !strings.HasSuffix(m, ".asc") {
			return m, nil
		}
	}
	return "", fmt.Errorf("no %s_*.orig.tar.* in %s", pkg, dir)
}

// debianCodename reads this machine's Debian release from /etc/os-release
// (bookworm when it does not say).
func debianCodename() string {
	data, err := os.ReadFile("/etc/os-release")
	if err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(line, "VERSION_CODENAME="); ok && strings.Trim(v, `"`) != "" {
				return strings.Trim(v, `"`)
			}
		}
	}
	return "bookworm"
}

// lockDir takes an exclusive lock on dir/lock, so that two sweeps do not
// fetch or prepare the same tree at once.
func lockDir(dir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
