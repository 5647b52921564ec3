// pollen libfuzzer TARGET [libFuzzer flags] [dirs|files]: a libFuzzer command line run by
// Pollen. A target linked with libpollen_fuzzer.a execs this when it is asked to fuzz
// (engine/runtime/main.cc), so `./fuzzer -max_total_time=60 corpus/` works as with libFuzzer.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "base/sha1.h"
#include "cli/commands.h"
#include "cli/fuzz_session.h"
#include "cli/libfuzzer_flags.h"
#include "cli/libfuzzer_observer.h"
#include "cli/target_setup.h"
#include "node/artifacts.h"
#include "node/interrupt.h"

namespace pollen::cli {
namespace {

const char kUsage[] =
    "Usage: pollen libfuzzer TARGET [-flag=value...] [DIR... | FILE...]\n"
    "\n"
    "Runs a libFuzzer command line with Pollen: TARGET -help=1 lists the flags. A target\n"
    "linked with libpollen_fuzzer.a runs this itself when given directories or no path.\n";

// The SHA-1s of the inputs in `dirs`, read as the session reads them (ReadCorpusDirs:
// recursively), and of those longer than the session's max_len cut to it: a seed kept that
// way is not a new unit either. A directory that cannot be read is left to the session to
// report. The max_len is the requested one, or what ChooseMaxLen makes of 0, which cuts the
// same inputs whether it sees `dirs` or all the session's directories (only those over its
// 1 MiB ceiling).
base::DigestSet HashesOf(const std::vector<std::string>& dirs, uint32_t requested_max_len) {
  base::DigestSet hashes;
  std::vector<std::vector<uint8_t>> inputs;
  Status ignored = ReadCorpusDirs(dirs, &inputs);
  (void)ignored;
  const uint32_t max_len = ChooseMaxLen(requested_max_len, inputs);
  for (const auto& data : inputs) {
    hashes.insert(base::Sha1(data.data(), data.size()));
    if (data.size() > max_len) hashes.insert(base::Sha1(data.data(), max_len));
  }
  return hashes;
}

// Runs the files once each in the target itself, which does that when none is a directory.
int RunInputs(const std::string& target, int argc, char** argv) {
  std::vector<char*> args{const_cast<char*>(target.c_str())};
  for (int i = 1; i < argc; i++) args.push_back(argv[i]);
  args.push_back(nullptr);
  setenv("POLLEN_LIBFUZZER_RUN", "1", 1);  // the target must not hand them back to us
  execv(target.c_str(), args.data());
  std::fprintf(stderr, "ERROR: cannot run %s: %s\n", target.c_str(), std::strerror(errno));
  return kExitUsage;
}

int Minimize(const LibFuzzerRun& run) {
  const std::string& input = run.inputs[0];
  std::string output = run.exact_artifact_path;
  if (output.empty()) {
    auto data = node::ReadWholeFile(input);
    if (!data.ok()) return UsageError(data.status().message());
    output = run.artifact_prefix + "minimized-from-" +
             base::Sha1Hex(data.value().data(), data.value().size());
  }
  std::vector<std::string> args{
      run.options.target,
      input,
      "--output=" + output,
      "--timeout=" + std::to_string(run.options.timeout),
      "--rss-limit-mb=" + std::to_string(run.options.rss_limit_mb),
      "--malloc-limit-mb=" + std::to_string(run.options.malloc_limit_mb),
      "--minimize-time=" + std::to_string(run.options.time ? run.options.time : 60)};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return MinimizeCommand(static_cast<int>(argv.size()), argv.data());
}

}  // namespace

int LibFuzzerCommand(int argc, char** argv) {
  if (argc < 1 || std::string(argv[0]) == "--help" || std::string(argv[0]) == "-h") {
    std::printf("%s", kUsage);
    return argc < 1 ? kExitUsage : kExitOk;
  }
  const std::string target = argv[0];
  auto parsed = ParseLibFuzzerArgs(target, std::vector<std::string>(argv + 1, argv + argc));
  if (!parsed.ok()) {
    std::fprintf(stderr, "ERROR: %s\n", parsed.status().message().c_str());
    return kExitFailureFound;  // libFuzzer exits 1 on a bad command line
  }
  LibFuzzerRun& run = parsed.value();
  for (const std::string& w : run.warnings) std::fprintf(stderr, "%s\n", w.c_str());
  if (Status made = MakeMissingDirs(run); !made.ok()) {
    std::fprintf(stderr, "ERROR: %s\n", made.message().c_str());
    return kExitFailureFound;  // as libFuzzer when it cannot make one
  }
  switch (run.mode) {
    case LibFuzzerRun::Mode::kHelp:
      std::fprintf(stderr, "%s", LibFuzzerHelp().c_str());
      return kExitOk;
    case LibFuzzerRun::Mode::kRunInputs:
      return RunInputs(target, argc, argv);
    case LibFuzzerRun::Mode::kMinimizeCrash:
      return Minimize(run);
    case LibFuzzerRun::Mode::kMerge:
    case LibFuzzerRun::Mode::kFuzz:
      break;
  }

  const bool merge = run.mode == LibFuzzerRun::Mode::kMerge;
  // A merge is a session that runs the seeds and stops: the first directory's inputs run
  // first and are known, and what the others add to its coverage is written into it, as
  // found (not reduced, not minimized). A crashing input is skipped, as libFuzzer does.
  // An input longer than max_len runs cut to it, in a merge as in a session (libFuzzer's
  // merge too writes it cut): its file's digest and its cut copy's both count.
  base::DigestSet known =
      HashesOf(merge ? std::vector<std::string>{run.output_corpus} : run.options.corpus_dirs,
               run.options.max_len);
  std::optional<base::DigestSet> merged_in;
  if (merge) {
    merged_in = HashesOf(std::vector<std::string>(run.options.corpus_dirs.begin() + 1,
                                                  run.options.corpus_dirs.end()),
                         run.options.max_len);
    run.seeds_only = true;
    run.options.keep_going = true;
    run.options.minimize_share = 0;
    run.options.reduce_inputs = false;
    run.options.keep_seed = false;  // only what adds coverage is merged
    run.options.time = 0;
    run.options.runs = 0;
  }
  // Not a run count: a seed that crashes is never counted, and the last one's result may
  // still be on its way when the count is reached.
  run.options.stop_after_seeds = run.seeds_only;
  run.options.libfuzzer_output = true;
  // libFuzzer writes everything to stderr, and scripts read it there.
  spdlog::set_default_logger(spdlog::stderr_color_mt("libfuzzer"));
  spdlog::set_pattern("%^%l%$: %v");
  // Before the temporary directory exists: a Ctrl-C from now on ends the session, which
  // removes it, instead of killing the process.
  node::InstallInterruptHandler();
  // libFuzzer keeps nothing between runs but the output corpus: the store is temporary.
  std::string workdir_template =
      (std::getenv("TMPDIR") != nullptr && *std::getenv("TMPDIR") ? std::getenv("TMPDIR")
                                                                  : "/tmp") +
      std::string("/pollen-libfuzzer-XXXXXX");
  if (mkdtemp(workdir_template.data()) == nullptr) {
    std::fprintf(stderr, "ERROR: cannot make a work directory %s: %s\n", workdir_template.c_str(),
                 std::strerror(errno));
    return kExitUsage;
  }
  run.options.workdir = workdir_template;

  LibFuzzerOutcome outcome;
  int code = RunFuzzSession(
      "libfuzzer", run.options,
      [&](const SessionInfo&) -> Result<std::unique_ptr<node::CoordinatorObserver>> {
        return std::unique_ptr<node::CoordinatorObserver>(std::make_unique<LibFuzzerObserver>(
            run, std::move(known), &outcome, std::move(merged_in)));
      });
  std::error_code ec;
  std::filesystem::remove_all(run.options.workdir, ec);
  if (!outcome.started) return code;  // the session stopped before fuzzing: it said why
  if (code == 130)
    std::fprintf(stderr, "==%d== pollen: run interrupted; exiting\n", static_cast<int>(getpid()));
  if (merge) {
    std::fprintf(stderr, "MERGE-OUTER: %lu new files with %lu new features added\n",
                 static_cast<unsigned long>(outcome.units_written),
                 static_cast<unsigned long>(outcome.new_features));
    return code == kExitUsage ? code : LibFuzzerExitCode(run, outcome, code == 130 ? 130 : 0);
  }
  std::fprintf(stderr, "%s", LibFuzzerFinalLines(run, outcome).c_str());
  return LibFuzzerExitCode(run, outcome, code);
}

}  // namespace pollen::cli
