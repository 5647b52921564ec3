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
// Only calls where one of those pointers may point into the program's data (a literal, a
// keyword table, followed back through locals and loads: MayPassLiteral) are logged; calls on
// buffers alone are not, as the runtime would throw their records away anyway.
//
// POLLEN_PASS_STATS=1 in the compiler's environment prints, per module, how many calls were
// logged and how many passed two pointers.
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

#include <cstdlib>

#include "compiler/libc_compares.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Support/raw_ostream.h"

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

// How far PointsIntoData follows a pointer back through loads, locals, phis and selects.
constexpr unsigned kTraceDepth = 8;

using Seen = llvm::SmallPtrSet<const llvm::Value*, 16>;

bool LoadedFromData(const llvm::Value* address, unsigned depth, Seen& seen);

// Whether a pointer may point into the program's own data: a global (a literal, a keyword
// table), or a pointer reached from one through loads, locals, offsets, phis and selects (a
// table walked by index or by cursor). Pointers that come only from arguments, calls and the
// heap (a decompressor's cursors into its buffers) do not. The pass runs before the
// optimiser, so locals are still memory: a local holds whatever is stored into it.
bool PointsIntoData(const llvm::Value* v, unsigned depth, Seen& seen) {
  if (depth == 0 || !seen.insert(v).second) return false;
  const llvm::Value* base = llvm::getUnderlyingObject(v);
  if (llvm::isa<llvm::GlobalVariable>(base)) return true;
  if (const auto* load = llvm::dyn_cast<llvm::LoadInst>(base)) {
    return LoadedFromData(load->getPointerOperand(), depth - 1, seen);
  }
  if (const auto* phi = llvm::dyn_cast<llvm::PHINode>(base)) {
    for (const llvm::Value* in : phi->incoming_values()) {
      if (PointsIntoData(in, depth - 1, seen)) return true;
    }
    return false;
  }
  if (const auto* select = llvm::dyn_cast<llvm::SelectInst>(base)) {
    return PointsIntoData(select->getTrueValue(), depth - 1, seen) ||
           PointsIntoData(select->getFalseValue(), depth - 1, seen);
  }
  return false;
}

// Whether something pointing into the program's data may be stored in `local`: stored
// into it or one of its fields, or handed to a call that gets the local too (a constructor,
// StringPiece(&tmp, "select"), or a copy from a constant). At most kLocalUses uses are read.
bool LocalHoldsData(const llvm::AllocaInst* local, unsigned depth, Seen& seen) {
  constexpr unsigned kLocalUses = 64;
  llvm::SmallVector<const llvm::Value*, 8> addresses{local};
  unsigned uses = 0;
  while (!addresses.empty()) {
    const llvm::Value* address = addresses.pop_back_val();
    for (const llvm::User* user : address->users()) {
      if (++uses > kLocalUses) return false;
      if (llvm::isa<llvm::GetElementPtrInst, llvm::BitCastInst>(user)) {
        addresses.push_back(user);
      } else if (const auto* store = llvm::dyn_cast<llvm::StoreInst>(user)) {
        if (store->getPointerOperand() == address &&
            PointsIntoData(store->getValueOperand(), depth - 1, seen)) {
          return true;
        }
      } else if (const auto* call = llvm::dyn_cast<llvm::CallBase>(user)) {
        for (const llvm::Value* arg : call->args()) {
          if (arg != address && arg->getType()->isPointerTy() &&
              PointsIntoData(arg, depth - 1, seen)) {
            return true;
          }
        }
      }
    }
  }
  return false;
}

// Whether a pointer loaded from `address` may point into the program's data: the address is
// inside the data itself (a table of literals), or inside a local that may hold such a
// pointer.
bool LoadedFromData(const llvm::Value* address, unsigned depth, Seen& seen) {
  if (PointsIntoData(address, depth, seen)) return true;
  const auto* local = llvm::dyn_cast<llvm::AllocaInst>(llvm::getUnderlyingObject(address));
  return local != nullptr && depth > 1 && LocalHoldsData(local, depth, seen);
}

// Whether a call is worth logging: one of its pointers may be a literal of the program. The
// runtime keeps only pairs of a literal and a pointer outside the image; a call whose
// pointers all come from arguments and buffers would cost a call on every execution (in a
// hot loop, lz4's decoder lost 40 % of its speed) for records the runtime throws away.
bool MayPassLiteral(llvm::Value* const* args, unsigned n) {
  for (unsigned i = 0; i < n; i++) {
    Seen seen;
    if (PointsIntoData(args[i], kTraceDepth, seen)) return true;
  }
  return false;
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
  unsigned candidates = 0, logged = 0;
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
      const unsigned n = PointerArgs(*call, args);
      if (n < 2) continue;
      candidates++;
      if (MayPassLiteral(args, n)) calls.push_back(call);
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
      logged++;
    }
  }
  if (const char* stats = std::getenv("POLLEN_PASS_STATS"); stats != nullptr && *stats == '1') {
    llvm::errs() << "pollen routine log: " << module.getName() << ": " << logged << " of "
                 << candidates << " calls with two or more pointers logged\n";
  }
  return changed ? llvm::PreservedAnalyses::none() : llvm::PreservedAnalyses::all();
}

}  // namespace pollen::compiler
