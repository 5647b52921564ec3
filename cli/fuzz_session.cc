#include "cli/fuzz_session.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "base/sha1.h"
#include "cli/commands.h"
#include "cli/target_setup.h"
#include "engine/embedded_dictionary.h"
#include "node/artifacts.h"
#include "node/coordinator.h"
#include "node/interrupt.h"

namespace pollen::cli {
namespace {

void PrintSummary(const node::FuzzSummary& s, const std::string& workdir) {
  std::fprintf(stderr,
               "\n== pollen summary: %s ==\n"
               "  executions:   %lu in %.1f s (%.0f exec/s)\n"
               "  coverage:     %zu edges, %zu features\n"
               "  corpus:       %zu entries, %lu bytes (stored in %s/corpus)\n"
               "  failures:     %lu\n",
               s.stopped       ? "stopped"
               : s.interrupted ? (node::Terminated() ? "stopped (SIGTERM)" : "interrupted")
               : s.failures    ? "failure found"
                               : "done",
               static_cast<unsigned long>(s.executions), s.seconds,
               s.seconds > 0 ? static_cast<double>(s.executions) / s.seconds : 0.0, s.edges,
               s.features, s.corpus_entries, static_cast<unsigned long>(s.corpus_bytes),
               workdir.c_str(), static_cast<unsigned long>(s.failures));
  for (const auto& a : s.artifacts) std::fprintf(stderr, "  artifact:     %s\n", a.c_str());
}

}  // namespace

void AddFuzzFlags(FlagParser& parser, node::FuzzOptions* options) {
#define POLLEN_ADD_FLAG(type, name, def, help) parser.Add(#name, &options->name, help);
  POLLEN_FUZZ_FLAGS(POLLEN_ADD_FLAG)
#undef POLLEN_ADD_FLAG
}

int RunFuzzSession(const std::string& command, node::FuzzOptions& options,
                   const ObserverFactory& make_observer) {
  if (options.timeout == 0) return UsageError("--timeout must be at least 1 second");
  if (options.unit_runs == 0) return UsageError("--unit-runs must be at least 1");
  if (options.unit_ms == 0) return UsageError("--unit-ms must be at least 1");
  Status target_ok = node::CheckTargetFile(options.target);
  if (!target_ok.ok()) return UsageError(target_ok.message());
  auto dict = LoadDictionary(options.dict);
  if (!dict.ok()) return UsageError(dict.status().message());
  size_t embedded = 0;
  if (options.target_dict) {
    // A broken section does not stop the run: the target may still be fine to fuzz.
    auto from_target = engine::ReadEmbeddedDictionary(options.target);
    if (from_target.ok()) {
      embedded = engine::MergeDictionary(from_target.value(), &dict.value());
    } else {
      spdlog::warn("the target's embedded dictionary is not used: {}",
                   from_target.status().message());
    }
  }
  std::vector<std::vector<uint8_t>> seeds;
  Status read = ReadCorpusDirs(options.corpus_dirs, &seeds);
  if (!read.ok()) return UsageError(read.message());
  options.max_len = ChooseMaxLen(options.max_len, seeds);
  if (options.seed == 0) {
    options.seed =
        static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
        (static_cast<uint64_t>(getpid()) << 32);
  }
  std::string name = BaseName(options.target);
  if (options.workdir.empty()) options.workdir = ".pollen/" + name;
  Status made = node::MakeDirs(options.workdir);
  if (!made.ok()) return UsageError(made.message());
  auto build_id = node::BuildIdOf(options.target);
  if (!build_id.ok()) return UsageError(build_id.status().message());

  storage::StoreOptions store_options;
  auto store = storage::CorpusStore::Open(options.workdir + "/corpus", {name, build_id.value()},
                                          store_options);
  if (!store.ok()) return UsageError(store.status().message());
  bool trust_features = !store.value()->build_id_changed();
  if (!trust_features) {
    spdlog::info("the target was rebuilt since the corpus was stored: its entries run again");
  }

  auto coverage = node::GlobalCoverage::Create();
  if (!coverage.ok()) return UsageError(coverage.status().message());
  node::LaunchOptions launch;
  launch.target = options.target;
  launch.max_len = options.max_len;
  launch.timeout_s = options.timeout;
  launch.rss_limit_mb = options.rss_limit_mb;
  launch.use_value_profile = options.use_value_profile != node::Setting::kOff;
  launch.only_ascii = options.only_ascii;
  launch.malloc_limit_mb =
      options.malloc_limit_mb != 0 ? options.malloc_limit_mb : options.rss_limit_mb;
  launch.dictionary = std::move(dict).value();
  node::WorkerLauncher launcher(launch, coverage.value().get());

  node::LiveCorpus corpus(store.value().get(), "local");
  std::vector<std::vector<uint32_t>> known;
  std::vector<node::StartupInput> to_execute;
  Status loaded = corpus.Load(trust_features, &known, &to_execute);
  if (!loaded.ok()) return UsageError(loaded.message());
  for (auto& s : seeds) {
    if (!corpus.Contains(base::Sha1(s.data(), s.size()))) to_execute.push_back({std::move(s)});
  }

  std::unique_ptr<node::CoordinatorObserver> observer;
  if (make_observer) {
    auto made_observer =
        make_observer(SessionInfo{name, build_id.value(), store.value().get(), &launcher});
    if (!made_observer.ok()) return UsageError(made_observer.status().message());
    observer = std::move(made_observer).value();
    if (observer->StopRequested()) return kExitOk;  // the observer said why
  }

  spdlog::info(
      "pollen {} {}: max_len {}, timeout {} s, rss limit {} MiB, dictionary {} entries "
      "({} embedded in the target), workdir {}",
      command, options.target, options.max_len, options.timeout, options.rss_limit_mb,
      launch.dictionary.entries.size(), embedded, options.workdir);
  node::InstallInterruptHandler();
  node::Coordinator coordinator(options, &launcher, &corpus, store.value().get(),
                                options.workdir + "/crashes");
  coordinator.set_observer(observer.get());
  auto summary = coordinator.Run(std::move(to_execute), std::move(known));
  if (!summary.ok()) {
    std::fprintf(stderr, "ERROR: %s\n", summary.status().message().c_str());
    return kExitUsage;
  }
  const node::FuzzSummary& s = summary.value();
  // pollen libfuzzer prints libFuzzer's closing lines instead (its work directory is temporary).
  if (!options.libfuzzer_output) PrintSummary(s, options.workdir);
  if (!s.learned_dictionary.empty()) {
    // libFuzzer's block, which scripts know; the words are kept in the work directory too.
    std::fprintf(
        stderr,
        "###### Recommended dictionary. ######\n%s###### End of recommended dictionary. ######\n",
        s.learned_dictionary.c_str());
  }
  return s.exit_code;
}

}  // namespace pollen::cli
