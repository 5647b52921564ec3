// The routine-log pass of Pollen's compiler plugin (compiler/plugin.cc): it logs the pointer
// arguments of calls, so that comparisons the libc interceptors never see reach
// input-to-state.
//
// A target's own string functions (a hand-written case-insensitive compare, a keyword table
// walked byte by byte) show up in trace-cmp only as one-byte comparisons, one byte at a time.
// AFL++'s "CmpLog routines" log the arguments of every call that takes two pointers; this pass
// does the same for Pollen: before each call that passes two or more pointers and returns an
// integer or a bool (what a comparison returns), it calls
//
//   void __pollen_trace_routine(const void* p0, const void* p1, const void* p2, const void* p3);
//
// with the call's first four pointer arguments (null for those it does not have): a keyword
// is often not among the first two (expat's XmlNameMatchesAscii(enc, ptr, end, KW_DOCTYPE)).
// The Pollen runtime defines the hook (engine/runtime/routine_hook.cc; each module gets a
// weak, empty one for programs linked without it). The runtime decides what is worth keeping
// (a text literal of the program against a pointer outside the image) and does the work only
// on the runs whose operands input-to-state reads.
//
// The pass runs at the start of the optimisation pipeline, before inlining: a small
// SameWord(token, n, "select") is still a call there, and is usually inlined later. It adds
// calls only, never branches or blocks, so the coverage counters SanitizerCoverage adds later
// are the same with and without it.
#include "compiler/routine_log_pass.h"

#include "compiler/libc_compares.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"

namespace pollen::compiler {
namespace {

// Functions whose comparisons the runtime already sees (its libc interceptors), or that are
// the runtime's and the sanitizers' own: logging them again would only duplicate records.
bool Skipped(llvm::StringRef name) {
  return IsLibcCompare(name) || name.startswith("llvm.") || name.startswith("__sanitizer") ||
         name.startswith("__asan") || name.startswith("__ubsan") || name.startswith("__pollen") ||
         name.startswith("__llvm");
}

constexpr unsigned kPointers = 4;

// The first kPointers pointer arguments of a call; how many it has (at most kPointers).
unsigned PointerArgs(llvm::CallBase& call, llvm::Value* out[kPointers]) {
  unsigned n = 0;
  for (llvm::Value* arg : call.args()) {
    if (arg->getType()->isPointerTy() && n < kPointers) out[n++] = arg;
  }
  return n;
}

// A weak, empty definition of the hook in every module: the Pollen runtime's strong one wins
// the link, and a program linked without it (a configure script's test program, a build for
// another fuzzer) still links and runs. SanitizerCoverage leaves it alone, so the coverage
// counters stay the same with and without the pass.
void DefineWeakHook(llvm::FunctionCallee hook) {
  auto* f = llvm::dyn_cast<llvm::Function>(hook.getCallee());
  if (f == nullptr || !f->isDeclaration()) return;
  f->setLinkage(llvm::GlobalValue::WeakAnyLinkage);
  f->addFnAttr(llvm::Attribute::NoSanitizeCoverage);
  f->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> builder(llvm::BasicBlock::Create(f->getContext(), "", f));
  builder.CreateRetVoid();
}

}  // namespace

llvm::PreservedAnalyses RoutineLogPass::run(llvm::Module& module, llvm::ModuleAnalysisManager&) {
  llvm::LLVMContext& ctx = module.getContext();
  llvm::PointerType* ptr = llvm::Type::getInt8PtrTy(ctx);
  llvm::FunctionCallee hook = module.getOrInsertFunction(
      "__pollen_trace_routine", llvm::Type::getVoidTy(ctx), ptr, ptr, ptr, ptr);
  bool changed = false;
  DefineWeakHook(hook);
  for (llvm::Function& f : module) {
    if (f.isDeclaration() || Skipped(f.getName())) continue;
    llvm::SmallVector<llvm::CallBase*, 16> calls;
    for (llvm::Instruction& inst : llvm::instructions(f)) {
      auto* call = llvm::dyn_cast<llvm::CallBase>(&inst);
      if (call == nullptr || call->isInlineAsm()) continue;
      llvm::Function* callee = call->getCalledFunction();
      if (callee != nullptr && Skipped(callee->getName())) continue;
      // A comparison answers with a number or a truth value: calls returning nothing or a
      // pointer (copy and write helpers, in a decompressor's hot loop) are left alone.
      if (!call->getType()->isIntegerTy()) continue;
      llvm::Value* args[kPointers];
      if (PointerArgs(*call, args) >= 2) calls.push_back(call);
    }
    for (llvm::CallBase* call : calls) {
      llvm::Value* args[kPointers];
      unsigned n = PointerArgs(*call, args);
      llvm::IRBuilder<> builder(call);
      llvm::Value* hook_args[kPointers];
      for (unsigned i = 0; i < kPointers; i++) {
        hook_args[i] = i < n ? builder.CreatePointerCast(args[i], ptr)
                             : static_cast<llvm::Value*>(llvm::ConstantPointerNull::get(ptr));
      }
      llvm::CallInst* log = builder.CreateCall(hook, hook_args);
      // The hook is no comparison of the program's: sanitizers leave it alone.
      log->setMetadata(ctx.getMDKindID("nosanitize"), llvm::MDNode::get(ctx, {}));
      changed = true;
    }
  }
  return changed ? llvm::PreservedAnalyses::none() : llvm::PreservedAnalyses::all();
}

}  // namespace pollen::compiler
