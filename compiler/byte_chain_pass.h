// The byte-chain pass of Pollen's compiler plugin (compiler/plugin.cc): tokens a parser
// tests one byte at a time, embedded as dictionary records (compiler/dict_section.h).
#ifndef POLLEN_COMPILER_BYTE_CHAIN_PASS_H_
#define POLLEN_COMPILER_BYTE_CHAIN_PASS_H_

#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"

namespace pollen::compiler {

struct ByteChainPass : llvm::PassInfoMixin<ByteChainPass> {
  llvm::PreservedAnalyses run(llvm::Module& module, llvm::ModuleAnalysisManager&);
};

}  // namespace pollen::compiler

#endif  // POLLEN_COMPILER_BYTE_CHAIN_PASS_H_
