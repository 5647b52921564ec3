#include "node/learned_dictionary.h"

#include <filesystem>

#include "engine/dictionary.h"
#include "node/text_file.h"

namespace pollen::node {

std::string LearnedDictionaryPath(const std::string& workdir) { return workdir + "/learned.dict"; }

Status LoadLearnedDictionary(const std::string& path, engine::LearnedWords* words) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return Status::Ok();
  auto dict = engine::LoadDictionaryFile(path);
  if (!dict.ok()) return dict.status();
  for (const std::string& e : dict.value().entries) {
    words->Add(reinterpret_cast<const uint8_t*>(e.data()), e.size());
  }
  return Status::Ok();
}

Status SaveLearnedDictionary(const std::string& path, const engine::LearnedWords& words) {
  return WriteTextFile(
      path, "# Learned by pollen: words whose use led to new coverage, most used first.\n" +
                words.Format(false));
}

}  // namespace pollen::node
