#include "compiler/dict_section.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

namespace pollen::compiler {
namespace {
constexpr const char* kSection = "pollen_dict";  // engine/embedded_dictionary.h
}  // namespace

void DictEntries::Add(std::string bytes) {
  if (bytes.size() < kMinDictEntry || bytes.size() > kMaxDictEntry ||
      entries_.size() >= kMaxDictEntries)
    return;
  if (seen_.insert(bytes).second) entries_.push_back(std::move(bytes));
}

std::string DictEntries::Records() const {
  std::string out;
  for (const std::string& e : entries_) {
    out.push_back(static_cast<char>(e.size()));
    out += e;
  }
  return out;
}

std::string ConstantBytes(const llvm::Value* value) {
  auto* global = llvm::dyn_cast<llvm::GlobalVariable>(value->stripPointerCasts());
  if (global == nullptr || !global->isConstant() || !global->hasDefinitiveInitializer()) return "";
  auto* data = llvm::dyn_cast<llvm::ConstantDataSequential>(global->getInitializer());
  if (data == nullptr || !data->isString()) return "";
  return data->getAsString().str();
}

bool EmbedDictRecords(llvm::Module& module, const std::string& records, llvm::StringRef name) {
  if (records.empty()) return false;
  llvm::LLVMContext& ctx = module.getContext();
  llvm::Constant* init = llvm::ConstantDataArray::getString(ctx, records, /*AddNull=*/false);
  auto* dict = new llvm::GlobalVariable(module, init->getType(), /*isConstant=*/true,
                                        llvm::GlobalValue::PrivateLinkage, init, name);
  dict->setSection(kSection);
  // Alignment 1: the records of two globals follow each other with no padding between.
  dict->setAlignment(llvm::Align(1));
  // Referenced by nothing: llvm.used keeps it through the optimiser and into the object file.
  llvm::appendToUsed(module, {dict});
  return true;
}

}  // namespace pollen::compiler
