// Pollen's optional compiler plugin for clang 14, libpollen_routine_log.so:
//
//   clang++-14 -fsanitize=fuzzer-no-link -fpass-plugin=libpollen_routine_log.so ...
//
// (in CMake: pollen_add_fuzz_target(... ROUTINE_LOG)). Two passes at the start of the
// optimisation pipeline, before inlining:
// - LiteralDictPass (literal_dict_pass.cc): the literals the module compares against, kept
//   in the program as a dictionary that `pollen` reads and uses;
// - RoutineLogPass (routine_log_pass.cc): the arguments of the program's own compare-like
//   calls, logged for input-to-state.
// The dictionary is collected first, before anything else touches the module. One at its
// end, after inlining:
// - ByteChainPass (byte_chain_pass.cc): tokens tested one byte at a time (`t[0] == 'P' &&
//   t[1] == '<'`), added to the same dictionary.
#include "compiler/byte_chain_pass.h"
#include "compiler/literal_dict_pass.h"
#include "compiler/routine_log_pass.h"
#include "llvm/Passes/OptimizationLevel.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"

extern "C" LLVM_ATTRIBUTE_WEAK llvm::PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "pollen", "3", [](llvm::PassBuilder& pb) {
            pb.registerPipelineStartEPCallback(
                [](llvm::ModulePassManager& mpm, llvm::OptimizationLevel) {
                  mpm.addPass(pollen::compiler::LiteralDictPass());
                  mpm.addPass(pollen::compiler::RoutineLogPass());
                });
            pb.registerOptimizerLastEPCallback(
                [](llvm::ModulePassManager& mpm, llvm::OptimizationLevel) {
                  mpm.addPass(pollen::compiler::ByteChainPass());
                });
          }};
}
