#include "node/failure.h"

#include <signal.h>
#include <sys/wait.h>

#include <cstring>
#include <regex>
#include <sstream>

#include "base/sha1.h"
#include "base/signal_names.h"
#include "node/symbolizer.h"

namespace pollen::node {
namespace {

// The part of stderr that is the report: from the first line that opens one.
std::string ReportPart(const std::string& text) {
  static const char* kOpeners[] = {"ERROR: AddressSanitizer",
                                   "ERROR: MemorySanitizer",
                                   "ERROR: LeakSanitizer",
                                   "runtime error:",
                                   "ERROR: pollen",
                                   "AddressSanitizer:DEADLYSIGNAL",
                                   "UndefinedBehaviorSanitizer:DEADLYSIGNAL"};
  size_t best = std::string::npos;
  for (const char* o : kOpeners) {
    size_t p = text.find(o);
    if (p != std::string::npos && (best == std::string::npos || p < best)) best = p;
  }
  if (best == std::string::npos) {
    // No report: keep the last lines, they are the best hint.
    size_t keep = 4096;
    return text.size() > keep ? text.substr(text.size() - keep) : text;
  }
  size_t line_start = text.rfind('\n', best);
  return text.substr(line_start == std::string::npos ? 0 : line_start + 1);
}

// "    #3 0x55d1c2 in Foo(int) /src/foo.cc:12:3" or "    #3 0x55d1c2 (/bin/target+0x1c2)"
const std::regex& FrameRegex() {
  static const std::regex kFrame(
      R"(^\s*#\d+ 0x[0-9a-fA-F]+ +(?:in (.+?)((?: /\S+| \(\S+\))*)(?: \(BuildId: \w+\))?$|\(([^()]+)\)(?: \(BuildId: \w+\))?$))");
  return kFrame;
}

// The function (or module+offset) a frame line names.
std::string FrameName(const std::smatch& m) {
  std::string f = m[1].matched ? m[1].str() : m[3].str();
  if (m[3].matched) {
    // Unsymbolized: keep the module's base name and offset, stable for one build.
    size_t slash = f.rfind('/');
    if (slash != std::string::npos) f = f.substr(slash + 1);
  }
  return f;
}

bool IsRuntimeFunction(const std::string& f) {
  static const char* kPrefixes[] = {
      "__sanitizer", "__asan", "__ubsan", "__msan", "__lsan", "__interceptor", "pollen::runtime",
      "abort", "raise", "__GI_", "gsignal", "__pthread_kill", "pthread_kill", "std::terminate",
      "__cxa", "__cxxabiv1", "__gnu_cxx::__verbose_terminate", "exit", "__libc", "_start",
      "__run_exit_handlers", "__restore_rt", "__interception", "main", "__assert", "__GI___assert",
      "backtrace", "_Unwind", "(anonymous namespace)::On", "libc.so", "libstdc++",
      // A typed fuzz test's assertion (fuzztest/): GoogleTest reporting it, and the calls
      // between the test's body and LLVMFuzzerTestOneInput.
      "testing::internal::", "testing::UnitTest::", "pollen::fuzztest",
      // The same, mangled, as the runtime's own printer shows them without a symbolizer.
      "_ZSt9terminate", "_ZN6pollen7runtime", "_ZN10__cxxabiv1", "_ZN9__gnu_cxx", "_ZNSt",
      "_ZN7testing8internal", "_ZN7testing8UnitTest", "_ZN6pollen8fuzztest"};
  for (const char* p : kPrefixes) {
    if (f.rfind(p, 0) == 0) return true;
  }
  // Templates the symbolizer names with their return type first ("void std::__invoke_impl<").
  for (const char* p : {" std::__invoke", " std::__apply_impl<", " std::apply<"}) {
    if (f.find(p) != std::string::npos) return true;
  }
  return f.find("libc.so") != std::string::npos || f.find("libstdc++.so") != std::string::npos;
}

// A frame of the runtime, a sanitizer, libc or libstdc++: by its function's name, or by the
// module its location names ("in memcpy (/lib/x86_64-linux-gnu/libc.so.6+0x1a0b6b)").
bool IsRuntimeFrame(const std::smatch& m) {
  if (IsRuntimeFunction(FrameName(m))) return true;
  std::string where = m[2].matched ? m[2].str() : m[3].str();
  for (const char* lib : {"/libc.so", "/libstdc++.so", "/libm.so", "/ld-linux", "/libgcc_s.so"}) {
    if (where.find(lib) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

std::string TrimRuntimeFrames(const std::string& report) {
  std::vector<std::string> lines;
  {
    std::istringstream in(report);
    std::string line;
    while (std::getline(in, line)) lines.push_back(line);
  }
  std::string out;
  size_t i = 0;
  while (i < lines.size()) {
    std::smatch m;
    if (!std::regex_search(lines[i], m, FrameRegex())) {
      out += lines[i++] + "\n";
      continue;
    }
    // One stack: consecutive frame lines.
    size_t begin = i;
    std::vector<bool> own;
    while (i < lines.size() && std::regex_search(lines[i], m, FrameRegex())) {
      own.push_back(!IsRuntimeFrame(m));
      i++;
    }
    size_t first = 0, last = own.size();
    while (first < own.size() && !own[first]) first++;
    while (last > first && !own[last - 1]) last--;
    if (first == own.size()) {
      first = 0;
      last = own.size();
    }
    for (size_t k = first; k < last; k++) {
      static const std::regex kNumber(R"(#\d+)");
      out += std::regex_replace(lines[begin + k], kNumber, "#" + std::to_string(k - first),
                                std::regex_constants::format_first_only) +
             "\n";
    }
  }
  return out;
}

std::vector<std::string> TopUserFrames(const std::string& report, size_t n) {
  const std::regex& kFrame = FrameRegex();
  std::vector<std::string> frames;
  std::istringstream in(report);
  std::string line;
  bool seen_frame = false;
  while (std::getline(in, line) && frames.size() < n) {
    std::smatch m;
    if (!std::regex_search(line, m, kFrame)) {
      if (seen_frame && line.find("#") == std::string::npos) break;  // end of the first stack
      continue;
    }
    seen_frame = true;
    if (IsRuntimeFrame(m)) continue;
    frames.push_back(FrameName(m));
  }
  return frames;
}

Failure ClassifyFailure(const DeathContext& death) {
  Failure f;
  std::string raw_report = ReportPart(death.stderr_text);
  f.report = TrimRuntimeFrames(SymbolizeReport(raw_report));

  static const std::regex kAsan(R"(ERROR: (?:Address|Memory|Leak)Sanitizer: ([A-Za-z0-9_-]+))");
  static const std::regex kPollen(R"(ERROR: pollen: (.*))");
  std::smatch m;
  if (death.killed_for_timeout && death.cutoff_ms != 0) {
    f.kind = "hang";
    f.summary = "hang: one execution ran past the hang cutoff of " +
                std::to_string(death.cutoff_ms) + " ms (--timeout is " +
                std::to_string(death.timeout_s) + " s; executions stopped at a limit had " +
                "taken their share of the run)";
  } else if (death.killed_for_timeout) {
    f.kind = "timeout";
    f.summary = "timeout: one execution ran longer than " + std::to_string(death.timeout_s) + " s";
  } else if (death.killed_for_oom) {
    f.kind = "oom";
    f.summary = "out of memory: the worker used " + std::to_string(death.rss_mb) + " MiB (limit " +
                std::to_string(death.rss_limit_mb) + " MiB)";
  } else if (std::regex_search(raw_report, m, kAsan)) {
    f.kind = m[1].str();
    if (f.kind == "detected") f.kind = "leak";
    // The ERROR line sometimes opens with prose ("requested allocation size ... exceeds");
    // the SUMMARY line then names the bug type.
    static const std::regex kSummary(
        R"(SUMMARY: (?:Address|Memory)Sanitizer: ([A-Za-z][A-Za-z0-9_-]*))");
    std::smatch sm;
    if (f.kind != "leak" && std::regex_search(raw_report, sm, kSummary)) f.kind = sm[1].str();
    if (f.kind == "allocation-size-too-big" || f.kind == "out-of-memory" ||
        f.kind == "rss-limit-exceeded") {
      f.kind = "oom";
    }
    size_t eol = raw_report.find('\n', m.position(0));
    f.summary = raw_report.substr(
        m.position(0), eol == std::string::npos ? std::string::npos : eol - m.position(0));
  } else if (raw_report.find("runtime error:") != std::string::npos) {
    f.kind = "undefined-behavior";
    size_t p = raw_report.find("runtime error:");
    size_t eol = raw_report.find('\n', p);
    f.summary = "UndefinedBehaviorSanitizer: " +
                raw_report.substr(p, eol == std::string::npos ? std::string::npos : eol - p);
  } else if (std::regex_search(raw_report, m, kPollen) &&
             m[1].str().rfind("out-of-memory (malloc(", 0) == 0) {
    f.kind = "oom";  // engine/runtime/malloc_limit.h
    f.summary = "out of memory: " + m[1].str() + " is above the malloc limit";
  } else if (death.exit_in_target) {
    f.kind = "exit";
    int code = WIFEXITED(death.wait_status) ? WEXITSTATUS(death.wait_status) : -1;
    f.summary =
        "the target called exit(" + std::to_string(code) + ") inside LLVMFuzzerTestOneInput";
  } else if (std::regex_search(raw_report, m, kPollen) &&
             m[1].str().find("uncaught C++ exception") != std::string::npos) {
    f.kind = "uncaught-exception";
    f.summary = m[1].str();
  } else if (WIFSIGNALED(death.wait_status)) {
    int sig = WTERMSIG(death.wait_status);
    const char* k = base::FatalSignalName(sig);
    f.kind = k ? k : ("signal-" + std::to_string(sig));
    f.summary = std::string("deadly signal ") + (k ? std::string("SIG") + k : std::to_string(sig));
    if (sig == SIGKILL) f.summary += " (killed from outside: the kernel's OOM killer?)";
  } else {
    f.kind = "unexpected-exit";
    int code = WIFEXITED(death.wait_status) ? WEXITSTATUS(death.wait_status) : -1;
    f.summary = "the worker exited with code " + std::to_string(code);
  }

  f.frames = TopUserFrames(f.report, 3);
  f.signature = FailureSignature(f.kind, f.frames);
  return f;
}

std::string FailureSignature(const std::string& kind, const std::vector<std::string>& frames) {
  std::string key = kind;
  for (const auto& fr : frames) key += "\n" + fr;
  std::string hex = base::Sha1Hex(reinterpret_cast<const uint8_t*>(key.data()), key.size());
  return hex.substr(0, 16);
}

}  // namespace pollen::node
