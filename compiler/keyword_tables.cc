// Keywords that a parser finds through a table and compares byte by byte in its own loop
// (sqlite3's tokenizer: a hash of the first and last bytes and the length picks a chain of
// keywords, each compared one byte at a time) are in no call and no compare with a constant:
// the literal pass cannot see them, the routine-log pass sees no call, and input-to-state is
// no help, since a byte that changes the hash sends the lookup to another keyword. Their
// table is in the module, though, as a constant array. This collects the words of such
// tables; bench/puzzles/puzzle_symbols.cc is the case it is for.
#include "compiler/keyword_tables.h"

#include <string>
#include <vector>

#include "llvm/IR/Constants.h"

namespace pollen::compiler {
namespace {

constexpr size_t kMaxWord = 32;

// The string `value` points at, cut at its first NUL; false when it points at no constant
// string (ConstantBytes: a string's bytes hold at least its terminating NUL).
bool StringAt(const llvm::Constant* value, std::string* out) {
  std::string bytes = ConstantBytes(value);
  if (bytes.empty()) return false;
  *out = bytes.substr(0, bytes.find('\0'));
  return true;
}

// An element's string: the element itself, or a struct's first field that is one.
bool ElementString(const llvm::Constant* element, std::string* out) {
  if (element->getType()->isPointerTy()) return StringAt(element, out);
  auto* fields = llvm::dyn_cast<llvm::ConstantStruct>(element);
  if (fields == nullptr) return false;
  for (unsigned i = 0; i < fields->getNumOperands(); i++) {
    auto* field = llvm::cast<llvm::Constant>(fields->getOperand(i));
    if (field->getType()->isPointerTy() && StringAt(field, out)) return true;
  }
  return false;
}

bool IsWord(const std::string& s) {
  if (s.size() < kMinDictEntry || s.size() > kMaxWord) return false;
  for (char c : s) {
    const bool word_char =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!word_char) return false;
  }
  return true;
}

}  // namespace

void AddKeywordTables(llvm::Module& module, DictEntries* entries) {
  for (llvm::GlobalVariable& global : module.globals()) {
    if (!global.isConstant() || !global.hasDefinitiveInitializer()) continue;
    auto* array = llvm::dyn_cast<llvm::ConstantArray>(global.getInitializer());
    if (array == nullptr || array->getNumOperands() < kMinTableWords) continue;
    std::vector<std::string> words;
    unsigned strings = 0;
    for (unsigned i = 0; i < array->getNumOperands(); i++) {
      std::string s;
      if (!ElementString(llvm::cast<llvm::Constant>(array->getOperand(i)), &s)) continue;
      strings++;
      if (IsWord(s)) words.push_back(std::move(s));
    }
    // Most of its strings are words: a table of messages with a few one-word ones is not.
    if (words.size() < kMinTableWords || words.size() * 2 < strings) continue;
    for (std::string& w : words) entries->Add(std::move(w));
  }
}

}  // namespace pollen::compiler
