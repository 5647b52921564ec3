// pollen corpus merge|compact: set-cover merge of corpora into a store, and compaction.
#include <chrono>
#include <cstdio>

#include "base/clock.h"
#include "cli/commands.h"
#include "cli/corpus_common.h"
#include "cli/target_setup.h"
#include "node/global_coverage.h"
#include "node/interrupt.h"
#include "node/worker_executor.h"
#include "node/worker_launcher.h"
#include "storage/corpus_formats.h"
#include "storage/corpus_merger.h"

namespace pollen::cli {

int MergeCommand(int argc, char** argv) {
  std::string target, format = "auto";
  uint32_t timeout = 10, rss_limit_mb = 2048, max_len = 1 << 20;
  FlagParser parser("corpus merge");
  parser.Add("target", &target, "the target binary whose coverage decides (required)");
  parser.Add("format", &format, "format of the source directories: auto, libfuzzer, afl or go");
  parser.Add("timeout", &timeout, "seconds an input may run before it counts as a hang");
  parser.Add("rss_limit_mb", &rss_limit_mb, "memory the target may use, in MiB; 0 = no limit");
  parser.Add("max_len", &max_len, "longer inputs are cut to this many bytes when run");
  std::vector<std::string> positional;
  int parsed = ParseSubcommand(
      parser, argc, argv,
      "Usage: pollen corpus merge STORE_OR_WORKDIR SOURCE... --target=BINARY [flags]\n\n"
      "Merges each SOURCE (another store or work directory, or a libFuzzer, AFL++ or Go\n"
      "corpus directory) into the store, keeping every feature of the union with as few\n"
      "and as small inputs as possible (greedy set cover, like libFuzzer's\n"
      "-set_cover_merge=1 and afl-cmin). Inputs whose features are recorded for this build\n"
      "are not run again; the others run once in TARGET. An input that crashes or hangs is\n"
      "skipped and reported. Entries of the store that the cover does not need are marked\n"
      "superseded (`pollen corpus compact` drops them). An interrupted merge resumes when\n"
      "run again.\n\nFlags:\n",
      2, SIZE_MAX, &positional);
  if (parsed >= 0) return parsed;
  if (target.empty()) return UsageError("pollen corpus merge needs --target=BINARY");
  if (timeout == 0) return UsageError("--timeout must be at least 1 second");
  Status target_ok = node::CheckTargetFile(target);
  if (!target_ok.ok()) return UsageError(target_ok.message());
  auto campaign = CampaignFor(positional[0], target);
  if (!campaign.ok()) return UsageError(campaign.status().message());
  auto destination = OpenForWriting(positional[0], campaign.value());
  if (!destination.ok()) return UsageError(destination.status().message());

  auto made = node::MakeSingleRunLauncher(target, timeout, rss_limit_mb, max_len);
  if (!made.ok()) return UsageError(made.status().message());
  node::WorkerLauncher& launcher = *made->launcher;
  node::WorkerExecutor executor(&launcher);
  node::InstallInterruptHandler();

  Progress progress("merge");
  storage::MergeOptions options;
  options.now_unix_ms = base::UnixMs();
  options.progress = [&](uint64_t done, uint64_t total, storage::MergePhase phase) {
    progress.Update(storage::MergePhaseName(phase), done, total);
  };
  storage::CorpusMerger merger(destination.value().get(), &executor, options);
  std::vector<std::unique_ptr<storage::CorpusStore>> sources;
  for (size_t i = 1; i < positional.size(); i++) {
    const std::string& source = positional[i];
    if (IsStore(source)) {
      auto store = OpenForInspection(source);
      if (!store.ok()) return UsageError(store.status().message());
      merger.AddStore(store.value().get());
      sources.push_back(std::move(store).value());
      continue;
    }
    auto fmt =
        format == "auto" ? storage::DetectCorpusFormat(source) : storage::ParseCorpusFormat(format);
    if (!fmt.ok()) return UsageError(fmt.status().message());
    storage::CorpusFormat f = fmt.value();
    merger.AddInputs(source, [source, f](const storage::InputSink& sink) {
      return storage::ReadCorpusDir(
          source, f, [&](std::string_view name, std::vector<uint8_t> data) {
            return sink(name, std::span<const uint8_t>(data.data(), data.size()));
          });
    });
  }
  auto report = merger.Run();
  progress.Finish();
  if (!report.ok()) {
    std::fprintf(stderr, "ERROR: %s\n", report.status().message().c_str());
    return node::Interrupted() ? 130 : kExitUsage;
  }
  Status flushed = destination.value()->Flush();
  if (!flushed.ok()) return UsageError(flushed.message());
  const storage::MergeReport& r = report.value();
  std::printf(
      "merged: %lu inputs offered (%lu duplicates), %lu run (%lu results reused from an "
      "interrupted merge), %lu failed\n"
      "cover: %lu features kept by %lu entries (%lu bytes); %lu entries added, %lu superseded\n",
      static_cast<unsigned long>(r.inputs_seen), static_cast<unsigned long>(r.duplicates),
      static_cast<unsigned long>(r.executed), static_cast<unsigned long>(r.results_reused),
      static_cast<unsigned long>(r.failed), static_cast<unsigned long>(r.features),
      static_cast<unsigned long>(r.entries_selected), static_cast<unsigned long>(r.bytes_selected),
      static_cast<unsigned long>(r.entries_added),
      static_cast<unsigned long>(r.entries_superseded));
  for (const auto& [kind, count] : r.failures_by_kind) {
    std::printf("  skipped %lu input%s that failed: %s\n", static_cast<unsigned long>(count),
                count == 1 ? "" : "s", kind.c_str());
  }
  return kExitOk;
}

int CompactCommand(int argc, char** argv) {
  FlagParser parser("corpus compact");
  std::vector<std::string> positional;
  int parsed = ParseSubcommand(
      parser, argc, argv,
      "Usage: pollen corpus compact STORE_OR_WORKDIR\n\n"
      "Drops the entries a merge superseded and compacts the store's files; prints entries\n"
      "and bytes before and after. Needs the store to itself (no `pollen fuzz` on it).\n",
      1, 1, &positional);
  if (parsed >= 0) return parsed;
  auto campaign = CampaignFor(positional[0], "");
  if (!campaign.ok()) return UsageError(campaign.status().message());
  storage::StoreOptions options;
  options.create_if_missing = false;
  auto store = storage::CorpusStore::Open(StoreDirOf(positional[0]), campaign.value(), options);
  if (!store.ok()) return UsageError(store.status().message());
  auto report = storage::CompactStore(*store.value());
  if (!report.ok()) return UsageError(report.status().message());
  const storage::CompactReport& r = report.value();
  std::printf(
      "compacted: %lu entries removed\n  before: %lu entries, %lu bytes raw, %lu bytes on disk\n"
      "  after:  %lu entries, %lu bytes raw, %lu bytes on disk\n",
      static_cast<unsigned long>(r.entries_removed), static_cast<unsigned long>(r.before.entries),
      static_cast<unsigned long>(r.before.raw_bytes),
      static_cast<unsigned long>(r.before.disk_bytes), static_cast<unsigned long>(r.after.entries),
      static_cast<unsigned long>(r.after.raw_bytes),
      static_cast<unsigned long>(r.after.disk_bytes));
  return kExitOk;
}

}  // namespace pollen::cli
