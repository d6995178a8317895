package bench

import (
	"errors"
	"strings"
	"testing"
)

// TestBuiltinRecipes reads every recipe of the SPEC-like suite: each names
// a package and its suite checks static functions.
func TestBuiltinRecipes(t *testing.T) {
	names := RecipeNames()
	if len(names) < 8 {
		t.Fatalf("%d recipes (%v), want at least the eight programs", len(names), names)
	}
	for _, name := range names {
		r, err := BuiltinRecipe(name)
		if err != nil {
			t.Fatal(err)
		}
		if r.Package == "" || r.Name != name {
			t.Errorf("%s: %+v", name, r)
		}
		if !strings.Contains(string(r.manifest), "static-functions yes") {
			t.Errorf("%s: static functions not checked by default", name)
		}
	}
	suites, err := OpenAll(SpecSuite, OpenOptions{})
	if err != nil || len(suites) != len(names) {
		t.Fatalf("OpenAll(spec): %d suites, %v", len(suites), err)
	}
}

func TestParseRecipeErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"sources a.c\n", "needs a package line"},
		{"package p\ndir ../up\n", "must lie inside the tree"},
		{"package p\ndir /abs\n", "must lie inside the tree"},
		{"package p\nprepare\n", `"prepare" needs a value`},
	} {
		_, err := ParseRecipe("r", "r.txt", []byte(tc.text))
		var me *ManifestError
		if !errors.As(err, &me) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want a ManifestError with %q", tc.text, err, tc.want)
		}
	}
	r, err := ParseRecipe("r", "r.txt", []byte("# c\npackage p\ndir src\nprepare ./configure -q\nprepare make x.h\nsources a.c\nstatic-functions no\n"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Package != "p" || r.Dir != "src" || len(r.Prepare) != 2 || r.Prepare[1] != "make x.h" {
		t.Errorf("recipe %+v", r)
	}
	// The recipe's own keys are blanked, so manifest errors keep their lines.
	if got := strings.Split(string(r.manifest), "\n"); len(got) < 6 || got[5] != "sources a.c" || strings.Contains(string(r.manifest), "static-functions yes") {
		t.Errorf("manifest part %q", r.manifest)
	}
}
