// The literal-dictionary pass of Pollen's compiler plugin (compiler/plugin.cc): the literals a
// module compares against, embedded in the module as dictionary records that `pollen` reads
// from the target's ELF section `pollen_dict` (engine/embedded_dictionary.h).
#ifndef POLLEN_COMPILER_LITERAL_DICT_PASS_H_
#define POLLEN_COMPILER_LITERAL_DICT_PASS_H_

#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"

namespace pollen::compiler {

struct LiteralDictPass : llvm::PassInfoMixin<LiteralDictPass> {
  llvm::PreservedAnalyses run(llvm::Module& module, llvm::ModuleAnalysisManager&);
};

}  // namespace pollen::compiler

#endif  // POLLEN_COMPILER_LITERAL_DICT_PASS_H_
