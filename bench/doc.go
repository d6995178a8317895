// Package bench owns the benchmark suites eqc checks and how they are built
// with real compilers. A suite is data (Suite): C sources compiled one
// relocatable object each, the functions to check in them, preprocessor
// variants and a compile matrix of compilers and optimization settings.
// Every other package gets its objects from here, with the exact flags that
// built them (Object.CFlags, recorded as `cflags` in every result row).
//
// # Built-in suites
//
// "tsvc" is the 28 TSVC loop kernels of docs/design.md#benchmarks, written
// for eqc with int arrays, one kernel per file under tsvc/. Its variants are
// fixed (the loop length is the constant LEN, 32000 unless -DLEN=...) and
// param (-DTSVC_PARAM: the length n is the first argument, 0 <= n <= LEN;
// s122's n1, n3 and s162's k follow it). The arrays a b c d e X Y arr and the
// scalars val s temp val_s are declared extern, aligned to 16, in tsvc.h;
// globals.c (a support file) defines them for runnable programs only, so a
// kernel object leaves them undefined for the checker's driver. LEN must be
// a multiple of 5 (s351 strides by 5). Each kernel's comment states the
// preconditions that keep its indices in bounds. "corpus" is a few small
// integer C programs (string routines, CRC-32, sorting and searching, bit
// loops) under corpus/, with no manifest. "kernels" is 56 integer loop
// kernels over arrays given by pointer and length, loop nests, searches,
// byte and string loops and loops over an integer's bits, under kernels/ with a manifest (both compilers, O0..O3). All
// are embedded in the binary; Prepare writes them to a directory named by
// their content hash.
//
// # Flags
//
// Every build: -O<level> -g -fno-inline -fno-optimize-sibling-calls
// -fno-stack-protector -fcf-protection=none -fno-pie.
// gcc adds -flive-patching=inline-only-static -fno-reorder-blocks-and-partition
// -fkeep-static-functions -fno-ipa-reference. -O2 and -O3 add -U__OPTIMIZE__.
// Then the target's flags (-msse4.2 for the sse4.2 target), the variant's,
// the suite's cflags, and -c. Flags returns exactly this list; the reasons
// are in docs/compile-flags.md. gcc rejects an explicit
// -fipa-cp-clone and the like next to -flive-patching, so a suite's cflags
// must not re-enable the interprocedural passes it turns off. Clang's
// module passes (IPSCCP, DeadArgElim, ...) are not disabled: they do not
// touch global functions such as the TSVC kernels, but can change static
// functions of other suites at -O2/-O3.
//
// The default matrix is gcc-12 and clang-16 at O0, O1, O2, O3, O2+sse4.2
// and O3+sse4.2. Compilers are resolved by LookupCompiler (gcc-12, else a
// gcc whose major version is 12; likewise clang-16); a missing one is a
// *MissingToolError naming it.
//
// # Manifest
//
// A suite directory may hold suite.txt: one "key value..." per line, '#'
// starts a comment, values are separated by blanks (so a flag cannot
// contain one), and file names are globs relative to the directory.
//
//	name NAME                  suite name (default: the directory's name)
//	sources FILE...            C files compiled one object each (repeatable;
//	                           default: every .c file that is not support)
//	support FILE...            C files linked only into runnable programs
//	functions NAME...          functions to check (repeatable; default: every
//	                           global function in the objects' symbol tables)
//	variant NAME [FLAG...]     a preprocessor variant (repeatable; default:
//	                           one variant "default" without flags)
//	cflags FLAG...             extra flags for every build (e.g. -I, -w)
//	compilers NAME...          default: gcc-12 clang-16
//	target NAME FLAG...        a target flag set; sse4.2 = -msse4.2 is predefined
//	opts LEVEL[+TARGET]...     default: O0 O1 O2 O3 O2+sse4.2 O3+sse4.2
//
//	static-functions yes|no    also check the static functions (default no;
//	                           yes for recipes)
//
// Without suite.txt, every .c file is a source and every global function
// it defines is checked. A bad manifest is a *ManifestError with its line.
//
// # Recipes: the open SPEC-like suite
//
// SPEC CPU is licensed, so "spec" is a suite of open real C programs that
// plays its role: one recipe per program under spec/ (bzip2, gzip, xz,
// lua, sqlite, grep, bc, gnugo). A recipe is a manifest over the sources'
// directory plus three keys of its own:
//
//	package NAME     the Debian source package whose upstream tarball it builds
//	dir PATH         the sources' directory in the unpacked tree (default .)
//	prepare CMD...   a shell command run once in the tree's top directory
//	                 (configure, generated headers; repeatable)
//
// Suite.Fetch gets the sources the first time: apt-get source
// --download-only through a private deb-src list for this machine's Debian
// release (the system's apt configuration is not touched), the orig
// tarball unpacked (Debian's patches are not applied), the prepare
// commands run; all under SpecRoot, once per package and set of prepare
// commands. --suite spec is every recipe, --suite bzip2 one, and --suite
// FILE a recipe of the user's own. Recipes check static functions, which
// clang's module passes would otherwise change (docs/compile-flags.md):
// every clang build of such a suite loads the keepsig pass plugin
// (KeepSignaturesFlags, built from clangplugin/keepsig.cpp against
// llvm-16-dev on first use). Stratified picks a size-stratified sample
// of a suite's functions (eqc sweep --sample).
//
// # SPEC CPU
//
// For the owners of SPEC CPU, OpenAll takes an installed tree (a directory
// with benchspec/): each integer C benchmark of CPU2000, CPU2006 or CPU2017
// is a suite, its sources and flags read from its own Spec/object.pm
// (ParseSpecObject) and its files compiled in src/ with the defines SPEC's
// tools add on 64-bit Linux (speccpu.go). One benchmark's directory is
// that benchmark alone. Benchmarks that cannot be read are left out with
// their reason (OpenOptions.Warn).
//
// # Caching
//
// Compile names each object by a hash of the compiler's version line, the
// flags, the source and every .h beside it, and returns an object already
// present without running the compiler. Headers elsewhere (system, csmith)
// are not hashed. The compiler runs in the source's directory with the
// source's base name, so DWARF names files without directories.
//
// # Corpus
//
// Corpus builds the lifter/tracer measurement corpus: tsvc in both
// variants, csmith programs from CsmithSeeds (generated with
// CsmithOptions, compiled with -I/usr/include/csmith -w) and the corpus
// suite, each with gcc-12 and clang-16 at O0..O3.
package bench
