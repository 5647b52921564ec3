#include "cli/corpus_common.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <system_error>

#include "base/clock.h"
#include "cli/commands.h"
#include "cli/target_setup.h"
#include "storage/store_inspect.h"

namespace pollen::cli {

namespace fs = std::filesystem;

std::string StoreDirOf(const std::string& path) {
  std::error_code ec;
  if (fs::exists(fs::path(path) / "CURRENT", ec)) return path;
  const fs::path corpus = fs::path(path) / "corpus";
  if (fs::is_directory(corpus, ec)) return corpus.string();
  return path;
}

bool IsStore(const std::string& path) {
  std::error_code ec;
  return fs::exists(fs::path(StoreDirOf(path)) / "CURRENT", ec);
}

Result<std::unique_ptr<storage::CorpusStore>> OpenForInspection(const std::string& path) {
  const std::string dir = StoreDirOf(path);
  Result<storage::CampaignId> campaign = storage::ReadStoredCampaign(dir);
  if (!campaign.ok()) return campaign.status();
  storage::StoreOptions options;
  options.read_only = true;
  options.create_if_missing = false;
  return storage::CorpusStore::Open(dir, *campaign, options);
}

Result<storage::CampaignId> CampaignFor(const std::string& path, const std::string& target) {
  if (!target.empty()) {
    auto build_id = node::BuildIdOf(target);
    if (!build_id.ok()) return build_id.status();
    return storage::CampaignId{BaseName(target), build_id.value()};
  }
  if (!IsStore(path)) {
    return Status::Error("there is no corpus store at " + path +
                         ": give --target=BINARY to create one for that target");
  }
  return storage::ReadStoredCampaign(StoreDirOf(path));
}

Result<std::unique_ptr<storage::CorpusStore>> OpenForWriting(const std::string& path,
                                                             const storage::CampaignId& campaign) {
  storage::StoreOptions options;
  options.create_if_missing = true;
  return storage::CorpusStore::Open(StoreDirOf(path), campaign, options);
}

int ParseSubcommand(FlagParser& parser, int argc, char** argv, const char* help_text,
                    size_t min_positional, size_t max_positional,
                    std::vector<std::string>* positional) {
  bool help = false;
  Status parsed = parser.Parse(argc, argv, positional, &help);
  if (help) {
    std::printf("%s%s", help_text, parser.Usage().c_str());
    return kExitOk;
  }
  if (!parsed.ok()) return UsageError(parsed.message());
  if (positional->size() < min_positional || positional->size() > max_positional) {
    std::string wanted =
        min_positional == max_positional
            ? std::to_string(min_positional)
            : (max_positional == SIZE_MAX
                   ? "at least " + std::to_string(min_positional)
                   : std::to_string(min_positional) + " to " + std::to_string(max_positional));
    return UsageError("expected " + wanted + " argument" + (max_positional == 1 ? "" : "s") +
                      ", got " + std::to_string(positional->size()) +
                      " (see pollen corpus --help)");
  }
  return -1;
}

Progress::Progress(std::string what) : what_(std::move(what)), start_ms_(base::MonotonicMs()) {}

void Progress::Update(std::string_view phase, uint64_t done, uint64_t total) {
  const uint64_t now = base::MonotonicMs();
  if (now - start_ms_ < 1000) return;
  const bool tty = isatty(2);
  const uint64_t tenth = total ? done * 10 / total : 0;
  bool phase_changed = phase != last_phase_;
  if (tty) {
    if (!phase_changed && done != total && now - last_ms_ < 250) return;
  } else if (!phase_changed && tenth == last_tenth_) {
    return;
  }
  last_ms_ = now;
  last_tenth_ = tenth;
  last_phase_ = std::string(phase);
  if (total) {
    std::fprintf(stderr, "%s%s: %.*s %lu/%lu (%lu%%)%s", tty ? "\r" : "", what_.c_str(),
                 static_cast<int>(phase.size()), phase.data(), static_cast<unsigned long>(done),
                 static_cast<unsigned long>(total), static_cast<unsigned long>(done * 100 / total),
                 tty ? "\033[K" : "\n");
  } else {
    std::fprintf(stderr, "%s%s: %.*s %lu%s", tty ? "\r" : "", what_.c_str(),
                 static_cast<int>(phase.size()), phase.data(), static_cast<unsigned long>(done),
                 tty ? "\033[K" : "\n");
  }
  drawn_ = tty;
}

void Progress::Finish() {
  if (drawn_) std::fprintf(stderr, "\n");
  drawn_ = false;
}

}  // namespace pollen::cli
