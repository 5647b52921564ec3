// pollen fuzz TARGET [CORPUS_DIR...]
#include <spdlog/spdlog.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "cli/commands.h"
#include "cli/flag_parser.h"
#include "cli/target_setup.h"
#include "engine/sha1.h"
#include "node/artifacts.h"
#include "node/coordinator.h"
#include "node/interrupt.h"
#include "storage/corpus_store.h"

namespace pollen::cli {
namespace {

const char kFuzzHelp[] =
    "Usage: pollen fuzz TARGET [CORPUS_DIR...] [flags]\n"
    "\n"
    "Fuzzes TARGET, a libFuzzer harness built with -fsanitize=fuzzer-no-link and linked with\n"
    "libpollen_runtime.a, with one worker process per core. The inputs in each CORPUS_DIR are\n"
    "run first (they are read, never written). The live corpus and the failure artifacts\n"
    "live in the work directory, so a second run resumes where the first stopped.\n"
    "Stops at the first failure (exit code 1) unless --keep-going; Ctrl-C stops cleanly.\n"
    "\n"
    "Flags:\n";

}  // namespace

int FuzzCommand(int argc, char** argv) {
  node::FuzzOptions options;
  FlagParser parser("fuzz");
#define POLLEN_ADD_FLAG(type, name, def, help) parser.Add(#name, &options.name, help);
  POLLEN_FUZZ_FLAGS(POLLEN_ADD_FLAG)
#undef POLLEN_ADD_FLAG
  std::vector<std::string> positional;
  bool help = false;
  Status parsed = parser.Parse(argc, argv, &positional, &help);
  if (help) {
    std::printf("%s%s", kFuzzHelp, parser.Usage().c_str());
    return kExitOk;
  }
  if (!parsed.ok()) return UsageError(parsed.message());
  if (positional.empty()) return UsageError("pollen fuzz needs a TARGET (see pollen fuzz --help)");
  options.target = positional[0];
  options.corpus_dirs.assign(positional.begin() + 1, positional.end());
  if (options.timeout == 0) return UsageError("--timeout must be at least 1 second");

  Status target_ok = node::CheckTargetFile(options.target);
  if (!target_ok.ok()) return UsageError(target_ok.message());
  auto dict = LoadDictionary(options.dict);
  if (!dict.ok()) return UsageError(dict.status().message());
  std::vector<std::vector<uint8_t>> seeds;
  Status read = ReadCorpusDirs(options.corpus_dirs, &seeds);
  if (!read.ok()) return UsageError(read.message());
  options.max_len = ChooseMaxLen(options.max_len, seeds);
  if (options.seed == 0) {
    options.seed = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
                   (static_cast<uint64_t>(getpid()) << 32);
  }
  std::string name = BaseName(options.target);
  if (options.workdir.empty()) options.workdir = ".pollen/" + name;
  Status made = node::MakeDirs(options.workdir);
  if (!made.ok()) return UsageError(made.message());
  auto build_id = BuildIdOf(options.target);
  if (!build_id.ok()) return UsageError(build_id.status().message());

  storage::StoreOptions store_options;
  auto store = storage::CorpusStore::Open(options.workdir + "/corpus", {name, build_id.value()}, store_options);
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
  launch.dictionary = std::move(dict).value();
  node::WorkerLauncher launcher(launch, coverage.value().get());

  node::LiveCorpus corpus(store.value().get(), "local");
  std::vector<std::vector<uint32_t>> known;
  std::vector<std::vector<uint8_t>> to_execute;
  Status loaded = corpus.Load(trust_features, &known, &to_execute);
  if (!loaded.ok()) return UsageError(loaded.message());
  for (auto& s : seeds) {
    if (!corpus.Contains(engine::Sha1Hex(s.data(), s.size()))) to_execute.push_back(std::move(s));
  }

  spdlog::info("pollen fuzz {}: max_len {}, timeout {} s, rss limit {} MiB, dictionary {} entries, workdir {}",
               options.target, options.max_len, options.timeout, options.rss_limit_mb,
               launch.dictionary.entries.size(), options.workdir);
  node::InstallInterruptHandler();
  node::Coordinator coordinator(options, &launcher, &corpus, store.value().get(),
                                options.workdir + "/crashes");
  auto summary = coordinator.Run(std::move(to_execute), std::move(known));
  if (!summary.ok()) {
    std::fprintf(stderr, "ERROR: %s\n", summary.status().message().c_str());
    return kExitUsage;
  }
  const node::FuzzSummary& s = summary.value();
  std::fprintf(stderr,
               "\n== pollen summary: %s ==\n"
               "  executions:   %lu in %.1f s (%.0f exec/s)\n"
               "  coverage:     %zu edges, %zu features\n"
               "  corpus:       %zu entries, %lu bytes (stored in %s/corpus)\n"
               "  failures:     %lu\n",
               s.interrupted ? "interrupted" : (s.failures ? "failure found" : "done"),
               static_cast<unsigned long>(s.executions), s.seconds,
               s.seconds > 0 ? static_cast<double>(s.executions) / s.seconds : 0.0, s.edges, s.features,
               s.corpus_entries, static_cast<unsigned long>(s.corpus_bytes), options.workdir.c_str(),
               static_cast<unsigned long>(s.failures));
  for (const auto& a : s.artifacts) std::fprintf(stderr, "  artifact:     %s\n", a.c_str());
  return s.exit_code;
}

}  // namespace pollen::cli
