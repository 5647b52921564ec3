// The routine-log pass of Pollen's compiler plugin (compiler/plugin.cc): a call to
// __pollen_trace_routine before each compare-like call (routine_log_pass.cc says which).
#ifndef POLLEN_COMPILER_ROUTINE_LOG_PASS_H_
#define POLLEN_COMPILER_ROUTINE_LOG_PASS_H_

#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"

namespace pollen::compiler {

struct RoutineLogPass : llvm::PassInfoMixin<RoutineLogPass> {
  llvm::PreservedAnalyses run(llvm::Module& module, llvm::ModuleAnalysisManager&);
};

}  // namespace pollen::compiler

#endif  // POLLEN_COMPILER_ROUTINE_LOG_PASS_H_
