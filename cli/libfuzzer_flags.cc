#include "cli/libfuzzer_flags.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <system_error>

namespace pollen::cli {
namespace {

using Handler = std::function<Status(int64_t value, const std::string& text, LibFuzzerRun* run)>;

struct FlagRule {
  const char* name;
  bool takes_text;  // a path or text; otherwise an integer
  const char* help;
  Handler apply;  // null: accepted and has no effect (Pollen decides it itself)
};

// Twenty-four hours: what a "no timeout" becomes, since a worker always has one.
constexpr int64_t kNoTimeoutSeconds = 24 * 3600;

uint32_t Clamp32(int64_t v) {
  return static_cast<uint32_t>(std::clamp<int64_t>(v, 0, std::numeric_limits<uint32_t>::max()));
}

Status SetWorkers(int64_t v, const std::string&, LibFuzzerRun* run) {
  if (v > 0)
    run->options.workers = std::max(run->options.workers, Clamp32(std::min<int64_t>(v, 1024)));
  return Status::Ok();
}

const std::vector<FlagRule>& Rules() {
  static const std::vector<FlagRule> rules = {
      {"runs", false,
       "stop after this many executions, seeds included (-1: no limit; 0: run the seeds, then "
       "stop)",
       [](int64_t v, const std::string&, LibFuzzerRun* r) {
         r->runs = v > 0 ? static_cast<uint64_t>(v) : 0;
         r->options.runs = r->runs;  // 0: no limit, or (-runs=0) seeds_only
         r->seeds_only = v == 0;
         return Status::Ok();
       }},
      {"max_total_time", false, "stop after this many seconds (Pollen's --time)",
       [](int64_t v, const std::string&, LibFuzzerRun* r) {
         r->options.time = v > 0 ? static_cast<uint64_t>(v) : 0;
         return Status::Ok();
       }},
      {"max_len", false, "largest input in bytes (0: the largest seed, at least 4096)",
       [](int64_t v, const std::string&, LibFuzzerRun* r) {
         r->options.max_len = Clamp32(v);
         return Status::Ok();
       }},
      {"len_control", false,
       "grow the longest mutant slowly (Pollen's --len-control; off unless given)",
       [](int64_t v, const std::string&, LibFuzzerRun* r) {
         r->options.len_control = Clamp32(v);
         return Status::Ok();
       }},
      {"timeout", false,
       "seconds one execution may take (default 10, not libFuzzer's 1200; 0: 24 hours)",
       [](int64_t v, const std::string&, LibFuzzerRun* r) {
         r->options.timeout = Clamp32(v > 0 ? v : kNoTimeoutSeconds);
         return Status::Ok();
       }},
      {"rss_limit_mb", false, "memory one worker may use, in MiB (0: no limit)",
       [](int64_t v, const std::string&, LibFuzzerRun* r) {
         r->options.rss_limit_mb = Clamp32(v);
         return Status::Ok();
       }},
      {"malloc_limit_mb", false,
       "one allocation larger than this is an out-of-memory failure (0: the rss limit; needs a "
       "sanitizer build, as in libFuzzer)",
       [](int64_t v, const std::string&, LibFuzzerRun* r) {
         r->options.malloc_limit_mb = Clamp32(v);
         return Status::Ok();
       }},
      {"dict", true, "dictionary file (libFuzzer/AFL format)",
       [](int64_t, const std::string& t, LibFuzzerRun* r) {
         r->options.dict = t;
         return Status::Ok();
       }},
      {"seed", false, "random seed (0: from the clock)",
       [](int64_t v, const std::string&, LibFuzzerRun* r) {
         r->options.seed = static_cast<uint64_t>(std::max<int64_t>(v, 0));
         return Status::Ok();
       }},
      {"jobs", false,
       "worker processes, all sharing one corpus (the largest of -jobs, -workers, -fork)",
       SetWorkers},
      {"workers", false, "worker processes (as -jobs)", SetWorkers},
      {"fork", false, "worker processes (as -jobs): Pollen's workers are always separate processes",
       SetWorkers},
      {"artifact_prefix", true, "failing inputs are written as PREFIX{crash,timeout,oom,leak}-SHA1",
       [](int64_t, const std::string& t, LibFuzzerRun* r) {
         r->artifact_prefix = t;
         return Status::Ok();
       }},
      {"exact_artifact_path", true,
       "the failing input is written to this path (overrides -artifact_prefix)",
       [](int64_t, const std::string& t, LibFuzzerRun* r) {
         r->exact_artifact_path = t;
         return Status::Ok();
       }},
      {"create_missing_dirs", false,
       "1: make the corpus directory and the artifacts' directory when they do not exist",
       [](int64_t v, const std::string&, LibFuzzerRun* r) {
         r->create_missing_dirs = v != 0;
         return Status::Ok();
       }},
      {"print_final_stats", false,
       "print stat::number_of_executed_units and the other stat:: lines at the end",
       [](int64_t v, const std::string&, LibFuzzerRun* r) {
         r->print_final_stats = v != 0;
         return Status::Ok();
       }},
      {"close_fd_mask", false,
       "accepted, no effect: the target's stdout always goes to /dev/null, and its stderr is read "
       "only for failure reports",
       nullptr},
      {"use_value_profile", false, "1: always on, 0: never (default: on while coverage is stuck)",
       [](int64_t v, const std::string&, LibFuzzerRun* r) {
         r->options.use_value_profile = v != 0 ? node::Setting::kOn : node::Setting::kOff;
         return Status::Ok();
       }},
      {"only_ascii", false, "1: mutants of printable ASCII and whitespace only",
       [](int64_t v, const std::string&, LibFuzzerRun* r) {
         r->options.only_ascii = v != 0;
         return Status::Ok();
       }},
      {"ignore_crashes", false,
       "1: go on after a failure (Pollen's --keep-going, for every kind of failure)",
       [](int64_t v, const std::string&, LibFuzzerRun* r) {
         if (v != 0) r->options.keep_going = true;
         return Status::Ok();
       }},
      {"ignore_timeouts", false,
       "accepted; only -ignore_crashes=1 makes Pollen go on after a failure", nullptr},
      {"ignore_ooms", false, "accepted; only -ignore_crashes=1 makes Pollen go on after a failure",
       nullptr},
      {"error_exitcode", false,
       "exit code after a failure other than a sanitizer's report, a timeout or an OOM (77)",
       [](int64_t v, const std::string&, LibFuzzerRun* r) {
         r->error_exitcode = static_cast<int>(std::clamp<int64_t>(v, 0, 255));
         return Status::Ok();
       }},
      {"timeout_exitcode", false, "exit code after a timeout (70)",
       [](int64_t v, const std::string&, LibFuzzerRun* r) {
         r->timeout_exitcode = static_cast<int>(std::clamp<int64_t>(v, 0, 255));
         return Status::Ok();
       }},
      {"help", false, "1: print this list",
       [](int64_t v, const std::string&, LibFuzzerRun* r) {
         if (v != 0) r->mode = LibFuzzerRun::Mode::kHelp;
         return Status::Ok();
       }},
      {"merge", false,
       "1: copy into the 1st directory the inputs of the others that add coverage to it",
       [](int64_t v, const std::string&, LibFuzzerRun* r) {
         if (v != 0) r->mode = LibFuzzerRun::Mode::kMerge;
         return Status::Ok();
       }},
      {"set_cover_merge", false, "1: as -merge=1",
       [](int64_t v, const std::string&, LibFuzzerRun* r) {
         if (v != 0) r->mode = LibFuzzerRun::Mode::kMerge;
         return Status::Ok();
       }},
      {"merge_control_file", true, "accepted, no effect: a merge that is killed starts again",
       nullptr},
      {"minimize_crash", false, "1: shrink the one crashing input given (pollen minimize)",
       [](int64_t v, const std::string&, LibFuzzerRun* r) {
         if (v != 0) r->mode = LibFuzzerRun::Mode::kMinimizeCrash;
         return Status::Ok();
       }},
      // libFuzzer's own heuristics and diagnostics: Pollen has its own, so these are accepted
      // and do nothing.
      {"verbosity", false, "accepted, no effect", nullptr},
      {"entropic", false, "accepted, no effect (Pollen's scheduler is its own)", nullptr},
      {"entropic_feature_frequency_threshold", false, "accepted, no effect", nullptr},
      {"entropic_number_of_rarest_features", false, "accepted, no effect", nullptr},
      {"entropic_scale_per_exec_time", false,
       "accepted, no effect (Pollen weighs speed by default)", nullptr},
      {"keep_seed", false,
       "1 (Pollen's default; libFuzzer's is 0): every seed stays in the corpus, even one that "
       "adds no coverage (--keep-seed); 0: only those that add coverage",
       [](int64_t v, const std::string&, LibFuzzerRun* r) {
         r->options.keep_seed = v != 0;
         return Status::Ok();
       }},
      {"cross_over", false, "accepted, no effect", nullptr},
      {"cross_over_uniform_dist", false, "accepted, no effect", nullptr},
      {"mutate_depth", false, "accepted, no effect", nullptr},
      {"reduce_depth", false, "accepted, no effect", nullptr},
      {"reduce_inputs", false, "accepted, no effect (Pollen reduces inputs)", nullptr},
      {"shuffle", false, "accepted, no effect", nullptr},
      {"prefer_small", false, "accepted, no effect", nullptr},
      {"reload", false, "accepted, no effect", nullptr},
      {"use_counters", false, "accepted, no effect", nullptr},
      {"use_memmem", false, "accepted, no effect", nullptr},
      {"use_cmp", false, "accepted, no effect (comparisons are always used)", nullptr},
      {"detect_leaks", false, "accepted, no effect", nullptr},
      {"report_slow_units", false, "accepted, no effect", nullptr},
      {"print_pcs", false, "accepted, no effect", nullptr},
      {"print_funcs", false, "accepted, no effect", nullptr},
      {"print_corpus_stats", false, "accepted, no effect", nullptr},
      {"print_coverage", false, "accepted, no effect (pollen coverage does this)", nullptr},
      {"handle_segv", false, "accepted, no effect", nullptr},
      {"handle_bus", false, "accepted, no effect", nullptr},
      {"handle_abrt", false, "accepted, no effect", nullptr},
      {"handle_ill", false, "accepted, no effect", nullptr},
      {"handle_fpe", false, "accepted, no effect", nullptr},
      {"handle_int", false, "accepted, no effect", nullptr},
      {"handle_term", false, "accepted, no effect", nullptr},
      {"handle_xfsz", false, "accepted, no effect", nullptr},
      {"handle_usr1", false, "accepted, no effect", nullptr},
      {"handle_usr2", false, "accepted, no effect", nullptr},
      {"purge_allocations_every", false, "accepted, no effect", nullptr},
      {"fork_corpus_groups", false, "accepted, no effect", nullptr},
      {"experimental_len_control", false, "accepted, no effect", nullptr},
      {"ignore_remaining_args", false, "1: the arguments after it are the target's own", nullptr},
  };
  return rules;
}

const FlagRule* FindRule(const std::string& name) {
  for (const FlagRule& r : Rules()) {
    if (name == r.name) return &r;
  }
  return nullptr;
}

// libFuzzer reads numbers with atol; here a number is a decimal integer, or an error.
Status ParseInteger(const std::string& name, const std::string& text, int64_t* out) {
  const char* begin = text.data() + (!text.empty() && text[0] == '+' ? 1 : 0);
  const char* end = text.data() + text.size();
  auto [stop, error] = std::from_chars(begin, end, *out);
  if (error == std::errc::result_out_of_range) {
    return Status::Error("-" + name + " is out of range: '" + text + "'");
  }
  if (error != std::errc() || stop != end || begin == end) {
    return Status::Error("-" + name + " expects an integer, got '" + text + "'");
  }
  return Status::Ok();
}

bool IsDirectory(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// Whether `path` exists; when not, errno says why.
bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// The directory part of a file's path ("" for a bare name).
std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

}  // namespace

Result<LibFuzzerRun> ParseLibFuzzerArgs(const std::string& target,
                                        const std::vector<std::string>& args) {
  LibFuzzerRun run;
  run.options.target = target;
  run.options.workers = 0;  // set below: 1 unless -jobs/-workers/-fork
  run.options.minimize_time = 0;
  // libFuzzer gives every execution -timeout, and its artifacts are its own: no hang cutoff.
  run.options.hang_cutoff_ms = 0;
  std::vector<std::string> paths;
  for (size_t i = 0; i < args.size(); i++) {
    const std::string& arg = args[i];
    if (arg.size() < 2 || arg[0] != '-') {
      paths.push_back(arg);
      continue;
    }
    size_t dashes = arg.find_first_not_of('-');
    if (dashes == std::string::npos) {  // "--", "---": no flag at all
      run.warnings.push_back("WARNING: unrecognized flag '" + arg +
                             "'; use -help=1 to list all flags");
      continue;
    }
    if (dashes > 1)
      run.warnings.push_back("INFO: '" + arg + "' read as '-" + arg.substr(dashes) + "'");
    std::string body = arg.substr(dashes);
    size_t eq = body.find('=');
    std::string name = body.substr(0, eq);
    const FlagRule* rule = eq == std::string::npos ? nullptr : FindRule(name);
    if (rule == nullptr) {
      run.warnings.push_back("WARNING: unrecognized flag '" + arg +
                             "'; use -help=1 to list all flags");
      continue;
    }
    std::string text = body.substr(eq + 1);
    int64_t value = 0;
    if (!rule->takes_text) {
      Status st = ParseInteger(name, text, &value);
      if (!st.ok()) return st;
    } else if (text.empty()) {
      return Status::Error("-" + name + " expects a value");
    }
    if (name == "ignore_remaining_args" && value != 0) break;
    if (rule->apply) {
      Status st = rule->apply(value, text, &run);
      if (!st.ok()) return st;
    }
  }
  if (run.options.workers == 0) run.options.workers = 1;
  if (run.mode == LibFuzzerRun::Mode::kHelp) return run;

  if (run.create_missing_dirs) {  // a prefix ending in '/' is a directory of its own
    const std::string& prefix = run.artifact_prefix;
    const bool whole = !prefix.empty() && prefix.back() == '/';
    for (const std::string& dir :
         {whole ? prefix : DirectoryOf(prefix), DirectoryOf(run.exact_artifact_path)}) {
      if (!dir.empty() && !Exists(dir)) run.dirs_to_make.push_back(dir);
    }
  }
  if (run.mode != LibFuzzerRun::Mode::kMinimizeCrash) {
    for (const std::string& p : paths) {
      if (Exists(p)) continue;
      if (errno != ENOENT) return Status::Error("cannot read '" + p + "': " + std::strerror(errno));
      if (!run.create_missing_dirs) {
        return Status::Error("'" + p +
                             "' does not exist (a path that is no file is a corpus directory, "
                             "which libFuzzer needs made first: mkdir -p " +
                             p + ", or -create_missing_dirs=1)");
      }
      run.dirs_to_make.push_back(p);
    }
  }
  auto is_dir = [&run](const std::string& p) {
    return IsDirectory(p) ||
           std::find(run.dirs_to_make.begin(), run.dirs_to_make.end(), p) != run.dirs_to_make.end();
  };
  size_t dirs = static_cast<size_t>(std::count_if(paths.begin(), paths.end(), is_dir));
  if (run.mode == LibFuzzerRun::Mode::kMinimizeCrash) {
    if (paths.size() != 1 || dirs != 0) {
      return Status::Error("-minimize_crash=1 needs exactly one input file");
    }
    run.inputs = paths;
    return run;
  }
  if (run.mode == LibFuzzerRun::Mode::kMerge) {
    if (dirs != paths.size() || paths.size() < 2) {
      return Status::Error(
          "-merge=1 needs two or more directories: the corpus to merge into, then the others");
    }
    run.options.corpus_dirs = paths;
    run.output_corpus = paths[0];
    return run;
  }
  if (!paths.empty() && dirs == 0) {
    run.mode = LibFuzzerRun::Mode::kRunInputs;
    run.inputs = paths;
    return run;
  }
  if (dirs != paths.size()) {
    for (const std::string& p : paths) {
      if (!is_dir(p)) {
        return Status::Error(
            "'" + p +
            "' is not a directory: a libFuzzer binary fuzzes directories or runs files, not both");
      }
    }
  }
  run.options.corpus_dirs = paths;
  if (!paths.empty()) run.output_corpus = paths[0];
  return run;
}

Status MakeMissingDirs(const LibFuzzerRun& run) {
  for (const std::string& dir : run.dirs_to_make) {
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    if (error) return Status::Error("cannot make directory '" + dir + "': " + error.message());
  }
  return Status::Ok();
}

std::string LibFuzzerHelp() {
  std::string out =
      "Usage (a Pollen target, run as a libFuzzer binary):\n"
      "\n"
      "To fuzz, pass 0 or more directories (new inputs are written to the first):\n"
      "  TARGET [-flag1=val1 [-flag2=val2 ...] ] [dir1 [dir2 ...] ]\n"
      "To run individual inputs without fuzzing, pass 1 or more files:\n"
      "  TARGET [-flag1=val1 [-flag2=val2 ...] ] file1 [file2 ...]\n"
      "\n"
      "The target fuzzes through `pollen libfuzzer` (found through $POLLEN, beside the target,\n"
      "or on PATH). Flags, strictly in the form -flag=value:\n";
  for (const FlagRule& r : Rules()) {
    std::string name = r.name;
    name.resize(std::max<size_t>(name.size() + 1, 40), ' ');
    out += " " + name + r.help + "\n";
  }
  out += "Other flags are ignored with a warning.\n";
  return out;
}

}  // namespace pollen::cli
