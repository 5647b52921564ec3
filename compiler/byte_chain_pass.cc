// Tokens a parser tests one byte at a time, as dictionary entries.
//
// re2 recognises a named group with `t[0] == 'P' && t[1] == '<'` after the caller has seen
// "(?": two one-byte comparisons, each with a constant, which no dictionary pass sees as one
// token (the literal pass keeps no one-byte constant) and which input-to-state solves one
// byte at a time, when the input that passed the first happens to be fuzzed with the second's
// operands in the table. Ten minutes of re2 were not enough for that (issue 20: AFL++ found
// `(?P<` in two of three runs, Pollen in none of its last two). Such chains are everywhere
// in hand-written parsers: `p[0] == '<' && p[1] == '!' && p[2] == '-'`.
//
// After the optimiser has inlined the accessors (`t[i]` is a call before it), each such test
// is an equality of a byte loaded from a pointer plus a constant offset with a constant. The
// pass groups them by function and base pointer, and each run of consecutive offsets where
// every offset is compared with exactly one constant becomes an entry: "(?P<" for re2's
// (the caller's test of "(?" is inlined with it) (an offset compared with several constants, a
// switch on a byte, ends a run: its bytes are alternatives, not a token; so does a NUL). The
// grouping ignores control flow: `p[1] == '!'` in one branch and `p[1] == '?'` in another
// make offset 1 an alternative, and neither `<!` nor `<?` is kept. It runs at the end of the
// optimisation pipeline and only reads the module; the records go to the section
// `pollen_dict`, after the literal pass's.
#include "compiler/byte_chain_pass.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "compiler/dict_section.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"

namespace pollen::compiler {
namespace {

// The bytes each (base pointer, offset) of one function is compared with.
using ByteTests = std::map<std::pair<const llvm::Value*, int64_t>, std::set<uint8_t>>;

// `value` as a byte loaded from base + offset (through a zero or sign extension, as C's
// promotions leave it), or false.
bool LoadedByte(llvm::Value* value, const llvm::DataLayout& dl, const llvm::Value** base,
                int64_t* offset) {
  if (auto* ext = llvm::dyn_cast<llvm::CastInst>(value)) {
    if (!llvm::isa<llvm::ZExtInst>(ext) && !llvm::isa<llvm::SExtInst>(ext)) return false;
    value = ext->getOperand(0);
  }
  auto* load = llvm::dyn_cast<llvm::LoadInst>(value);
  if (load == nullptr || !load->getType()->isIntegerTy(8)) return false;
  const llvm::Value* ptr = load->getPointerOperand();
  llvm::APInt off(dl.getIndexTypeSizeInBits(ptr->getType()), 0);
  *base = ptr->stripAndAccumulateConstantOffsets(dl, off, /*AllowNonInbounds=*/true);
  if (off.getMinSignedBits() > 64) return false;
  *offset = off.getSExtValue();
  return true;
}

// Notes `cmp` when it tests a loaded byte for equality with a constant that fits in a byte.
void NoteCompare(llvm::ICmpInst& cmp, const llvm::DataLayout& dl, ByteTests* tests) {
  if (!cmp.isEquality()) return;
  for (unsigned i = 0; i < 2; i++) {
    auto* c = llvm::dyn_cast<llvm::ConstantInt>(cmp.getOperand(i));
    if (c == nullptr) continue;
    const llvm::Value* base = nullptr;
    int64_t offset = 0;
    if (!LoadedByte(cmp.getOperand(1 - i), dl, &base, &offset)) return;
    const llvm::APInt& v = c->getValue();
    if (!v.isIntN(8) && !v.isSignedIntN(8)) return;  // a promoted byte never equals it
    (*tests)[{base, offset}].insert(static_cast<uint8_t>(v.extractBitsAsZExtValue(8, 0)));
    return;
  }
}

// A switch on a loaded byte: its cases are alternatives at that offset.
void NoteSwitch(llvm::SwitchInst& sw, const llvm::DataLayout& dl, ByteTests* tests) {
  const llvm::Value* base = nullptr;
  int64_t offset = 0;
  if (!LoadedByte(sw.getCondition(), dl, &base, &offset)) return;
  std::set<uint8_t>& bytes = (*tests)[{base, offset}];
  for (auto& c : sw.cases()) {
    bytes.insert(static_cast<uint8_t>(c.getCaseValue()->getValue().extractBitsAsZExtValue(8, 0)));
  }
}

// The runs of consecutive offsets of one base with one byte each, sorted: the map's order of
// bases is their addresses, which differ from one compilation to the next.
std::vector<std::string> Chains(const ByteTests& tests) {
  std::vector<std::string> out;
  std::string run;
  const llvm::Value* run_base = nullptr;
  int64_t next = 0;
  auto flush = [&] {
    // A NUL is a test of a flag or a terminator against 0, or a UTF-16 decoder's high byte:
    // not part of a token an input would carry (binary magic compared as an integer is the
    // literal pass's). The run is cut there.
    size_t start = 0;
    while (start < run.size()) {
      size_t end = std::min(run.find('\0', start), run.size());
      if (end - start >= kMinDictEntry)
        out.push_back(run.substr(start, std::min(end - start, kMaxDictEntry)));
      start = end + 1;
    }
    run.clear();
  };
  for (const auto& [key, bytes] : tests) {  // ordered by base, then offset
    if (key.first != run_base || key.second != next || bytes.size() != 1) flush();
    run_base = key.first;
    next = key.second + 1;
    if (bytes.size() == 1) run.push_back(static_cast<char>(*bytes.begin()));
  }
  flush();
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

llvm::PreservedAnalyses ByteChainPass::run(llvm::Module& module, llvm::ModuleAnalysisManager&) {
  const llvm::DataLayout& dl = module.getDataLayout();
  DictEntries entries;
  for (llvm::Function& f : module) {
    if (f.isDeclaration() || f.getName().startswith("__pollen")) continue;
    ByteTests tests;
    for (llvm::Instruction& inst : llvm::instructions(f)) {
      if (auto* cmp = llvm::dyn_cast<llvm::ICmpInst>(&inst)) {
        NoteCompare(*cmp, dl, &tests);
      } else if (auto* sw = llvm::dyn_cast<llvm::SwitchInst>(&inst)) {
        NoteSwitch(*sw, dl, &tests);
      }
    }
    for (std::string& chain : Chains(tests)) entries.Add(std::move(chain));
  }
  if (!EmbedDictRecords(module, entries.Records(), "__pollen_dict_chains")) {
    return llvm::PreservedAnalyses::all();
  }
  return llvm::PreservedAnalyses::none();
}

}  // namespace pollen::compiler
