#include "cli/target_setup.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "cli/commands.h"
#include "node/artifacts.h"

namespace pollen::cli {

Status ReadCorpusDirs(const std::vector<std::string>& dirs,
                      std::vector<std::vector<uint8_t>>* inputs) {
  namespace fs = std::filesystem;
  for (const std::string& dir : dirs) {
    std::error_code ec;
    if (!fs::exists(dir, ec)) return Status::Error("corpus directory " + dir + " does not exist");
    if (!fs::is_directory(dir, ec))
      return Status::Error(dir +
                           " is not a directory (corpus directories hold one file per input)");
    fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec);
    if (ec) return Status::Error("cannot read corpus directory " + dir + ": " + ec.message());
    for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (ec) return Status::Error("cannot read corpus directory " + dir + ": " + ec.message());
      if (!it->is_regular_file(ec)) continue;
      auto data = node::ReadWholeFile(it->path().string());
      if (!data.ok()) return data.status();
      inputs->push_back(std::move(data).value());
    }
    if (ec) return Status::Error("cannot read corpus directory " + dir + ": " + ec.message());
  }
  return Status::Ok();
}

uint32_t ChooseMaxLen(uint32_t requested, const std::vector<std::vector<uint8_t>>& seeds) {
  if (requested != 0) return requested;
  size_t largest = 0;
  for (const auto& s : seeds) largest = std::max(largest, s.size());
  return static_cast<uint32_t>(std::clamp<size_t>(largest, 4096, 1 << 20));
}

Result<engine::Dictionary> LoadDictionary(const std::string& path) {
  if (path.empty()) return engine::Dictionary{};
  return engine::LoadDictionaryFile(path);
}

std::string BaseName(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

int UsageError(const std::string& message) {
  std::fprintf(stderr, "ERROR: %s\n", message.c_str());
  return kExitUsage;
}

}  // namespace pollen::cli
