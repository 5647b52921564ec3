// The literals a module compares against, as a dictionary embedded in the program.
//
// A parser's keywords are often compared by calls the runtime sees only when an input reaches
// them: sqlite3's `sqlite3_strnicmp(z, "CREATE", 6)` behind a tokenizer state. (Keywords
// read from a table and compared byte by byte are not call arguments: the words of such
// tables are collected apart, keyword_tables.h.) AFL++ writes such literals to a file at compile
// time (AFL_LLVM_DICT2FILE) that afl-fuzz takes as a dictionary. This pass keeps them in the
// program itself, so that `pollen fuzz` and every node of a cluster find them without a file
// to carry: each module gets one constant array in the section `pollen_dict`, of records
// (a length byte, then the bytes), which the linker concatenates.
//
// What it collects, before the optimiser runs (the literal is still an argument there):
// - strings: a constant string passed to a call that returns an integer (a comparison's
//   answer; not printf and the other output functions) or to one of libc's compare and
//   search functions; cut at its first NUL, or at the length memcmp/strncmp/bcmp are given
//   when that is a constant;
// - integers: the constant side of an integer compare (`==`/`!=`) or of a switch case, when
//   it is 16, 32 or 64 bits wide and no single byte holds it (a one-byte compare the runtime
//   solves by itself), little-endian as the program compares it in memory;
// - words: those of the module's keyword tables (keyword_tables.h), which no call or compare
//   with a constant shows.
// At most kMaxDictEntries per module, each 2..128 bytes, each once (compiler/dict_section.h).
#include "compiler/literal_dict_pass.h"

#include <algorithm>
#include <string>

#include "compiler/dict_section.h"
#include "compiler/keyword_tables.h"
#include "compiler/libc_compares.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"

namespace pollen::compiler {
namespace {

// libc's functions that compare or search with a string; the argument that says how many
// bytes count, if any.
int LengthArgument(llvm::StringRef name) {
  if (name == "memcmp" || name == "bcmp" || name == "strncmp" || name == "strncasecmp") return 2;
  if (name == "memmem") return 3;
  return -1;
}

// Functions that write text out: they return an int too, but their strings are formats and
// messages, not what an input is compared with.
bool IsOutput(llvm::StringRef name) {
  return name.contains("printf") || name == "puts" || name == "fputs" || name == "fwrite" ||
         name == "write" || name == "perror" || name == "syslog";
}

class Collector {
 public:
  void AddBytes(std::string bytes) { entries_.Add(std::move(bytes)); }

  // `value` compared with `other`: as wide as `other` was before C's integer promotions
  // widened it (a 16-bit field switched on as an int is two bytes in the input).
  void AddInteger(const llvm::APInt& value, llvm::Value* other) {
    unsigned width = value.getBitWidth();
    if (auto* cast = llvm::dyn_cast<llvm::CastInst>(other)) {
      if (llvm::isa<llvm::ZExtInst>(cast) || llvm::isa<llvm::SExtInst>(cast)) {
        const unsigned narrow = cast->getSrcTy()->getIntegerBitWidth();
        if (value.getActiveBits() > narrow && value.getMinSignedBits() > narrow)
          return;  // never equal
        width = narrow;
      }
    }
    if (width != 16 && width != 32 && width != 64) return;
    if (value.isIntN(8) || value.isSignedIntN(8)) return;
    std::string bytes;
    for (unsigned i = 0; i < width / 8; i++) {
      bytes.push_back(static_cast<char>(value.extractBitsAsZExtValue(8, i * 8)));
    }
    AddBytes(std::move(bytes));
  }

  void AddCall(llvm::CallBase& call) {
    llvm::Function* callee = call.getCalledFunction();
    const llvm::StringRef name = callee != nullptr ? callee->getName() : "";
    if (IsOutput(name) || (!call.getType()->isIntegerTy() && !IsLibcCompare(name))) return;
    // A constant length (memcmp(p, "ab\0", 3)) says how many bytes count, a NUL included;
    // without one, the string ends at its first NUL.
    uint64_t limit = 0;
    const int length_arg = LengthArgument(name);
    if (length_arg >= 0 && static_cast<unsigned>(length_arg) < call.arg_size()) {
      if (auto* n = llvm::dyn_cast<llvm::ConstantInt>(call.getArgOperand(length_arg))) {
        limit = n->getLimitedValue(kMaxDictEntry + 1);
      }
    }
    for (llvm::Value* arg : call.args()) {
      if (!arg->getType()->isPointerTy()) continue;
      std::string bytes = ConstantBytes(arg);
      if (limit == 0) {
        bytes.resize(std::min(bytes.size(), bytes.find('\0')));
      } else if (bytes.size() > limit) {
        bytes.resize(limit);
      }
      AddBytes(std::move(bytes));
    }
  }

  void AddCompare(llvm::ICmpInst& cmp) {
    if (!cmp.isEquality()) return;
    for (unsigned i = 0; i < 2; i++) {
      if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(cmp.getOperand(i))) {
        AddInteger(c->getValue(), cmp.getOperand(1 - i));
      }
    }
  }

  void AddSwitch(llvm::SwitchInst& sw) {
    for (auto& c : sw.cases()) AddInteger(c.getCaseValue()->getValue(), sw.getCondition());
  }

  std::string Records() const { return entries_.Records(); }
  DictEntries* entries() { return &entries_; }

 private:
  DictEntries entries_;
};

}  // namespace

llvm::PreservedAnalyses LiteralDictPass::run(llvm::Module& module, llvm::ModuleAnalysisManager&) {
  Collector collector;
  for (llvm::Function& f : module) {
    if (f.isDeclaration() || f.getName().startswith("__pollen")) continue;
    for (llvm::Instruction& inst : llvm::instructions(f)) {
      if (auto* call = llvm::dyn_cast<llvm::CallBase>(&inst)) {
        if (!call->isInlineAsm()) collector.AddCall(*call);
      } else if (auto* cmp = llvm::dyn_cast<llvm::ICmpInst>(&inst)) {
        collector.AddCompare(*cmp);
      } else if (auto* sw = llvm::dyn_cast<llvm::SwitchInst>(&inst)) {
        collector.AddSwitch(*sw);
      }
    }
  }
  AddKeywordTables(module, collector.entries());
  if (!EmbedDictRecords(module, collector.Records(), "__pollen_dict")) {
    return llvm::PreservedAnalyses::all();
  }
  return llvm::PreservedAnalyses::none();
}

}  // namespace pollen::compiler
