// keepsig: an LLVM 16 pass plugin that keeps every function's signature and
// calling convention as the source wrote them, so that an optimized object
// can be compared with the -O0 object function by function.
//
// clang's module passes rewrite static functions even under -fno-inline:
// they push constant arguments into callees, specialize and clone them,
// drop dead parameters and return values, switch them to the fastcc
// convention, pass pointed-to values instead of pointers, and let calls be
// deleted on the strength of inferred attributes. No driver flag turns
// these passes off, so this plugin tells the pass manager to skip them
// (docs/compile-flags.md lists why each one is here). Loaded with
// clang -fpass-plugin=keepsig.so; bench builds it against llvm-16-dev.
#include "llvm/IR/PassInstrumentation.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"

using namespace llvm;

static bool changesSignatures(StringRef pass) {
  static const char *const skipped[] = {
      "IPSCCPPass",                        // constants into callees, specialization
      "CalledValuePropagationPass",        // callee sets of indirect calls
      "GlobalOptPass",                     // fastcc, folded statics
      "DeadArgumentEliminationPass",       // dropped parameters and returns
      "PostOrderFunctionAttrsPass",        // attributes that delete calls
      "ReversePostOrderFunctionAttrsPass", //
      "ArgumentPromotionPass",             // values instead of pointers (-O3)
      "OpenMPOptPass",                     //
      "OpenMPOptCGSCCPass",                //
  };
  for (const char *s : skipped)
    if (pass == s)
      return true;
  return false;
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "eqc-keepsig", "1", [](PassBuilder &pb) {
            PassInstrumentationCallbacks *pic = pb.getPassInstrumentationCallbacks();
            if (!pic)
              return;
            pic->registerShouldRunOptionalPassCallback(
                [](StringRef pass, Any) { return !changesSignatures(pass); });
          }};
}
