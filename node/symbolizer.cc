#include "node/symbolizer.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <map>
#include <regex>
#include <sstream>
#include <vector>

namespace pollen::node {
namespace {

// Runs argv, returns its stdout (empty on any failure).
std::string RunCapture(const std::vector<std::string>& args) {
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return "";
  pid_t pid = fork();
  if (pid < 0) {
    close(out[0]);
    close(out[1]);
    return "";
  }
  if (pid == 0) {
    dup2(out[1], 1);
    int devnull = open("/dev/null", O_RDWR);
    if (devnull >= 0) {
      dup2(devnull, 0);
      dup2(devnull, 2);
    }
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(out[1]);
  std::string result;
  char buf[4096];
  ssize_t r;
  while ((r = read(out[0], buf, sizeof(buf))) != 0) {
    if (r < 0) {
      if (errno == EINTR) continue;
      break;
    }
    result.append(buf, static_cast<size_t>(r));
  }
  close(out[0]);
  int status;
  waitpid(pid, &status, 0);
  return result;
}

}  // namespace

const Symbolizer& FindSymbolizer() {
  static const Symbolizer found = [] {
    for (const char* p : {"/usr/lib/llvm-14/bin/llvm-symbolizer", "/usr/bin/llvm-symbolizer-14",
                          "/usr/bin/llvm-symbolizer"}) {
      if (access(p, X_OK) == 0) return Symbolizer{Symbolizer::Kind::kLlvm, p};
    }
    for (const char* p : {"/usr/bin/addr2line", "/usr/bin/x86_64-linux-gnu-addr2line"}) {
      if (access(p, X_OK) == 0) return Symbolizer{Symbolizer::Kind::kAddr2line, p};
    }
    return Symbolizer{};
  }();
  return found;
}

std::string SymbolizeReport(const std::string& report) {
  return SymbolizeReportWith(FindSymbolizer(), report);
}

std::string SymbolizeReportWith(const Symbolizer& symbolizer, const std::string& report) {
  if (symbolizer.kind == Symbolizer::Kind::kNone) return report;
  // Pollen's runtime: "#N 0xPC (MODULE+0xOFF)"; a sanitizer without a symbolizer of its own:
  // "#N 0xPC  (MODULE+0xOFF) (BuildId: HEX)".
  static const std::regex kRaw(
      R"(^(\s*#\d+ 0x[0-9a-fA-F]+) +\((/[^+()]+)\+0x([0-9a-fA-F]+)\)( \(BuildId: [0-9a-fA-F]+\))?$)");
  std::vector<std::string> lines;
  {
    std::istringstream in(report);
    std::string line;
    while (std::getline(in, line)) lines.push_back(line);
  }
  // Module -> (line index, offset) for each unsymbolized frame.
  std::map<std::string, std::vector<std::pair<size_t, std::string>>> todo;
  for (size_t i = 0; i < lines.size(); i++) {
    std::smatch m;
    if (std::regex_match(lines[i], m, kRaw)) todo[m[2].str()].push_back({i, m[3].str()});
  }
  const bool llvm = symbolizer.kind == Symbolizer::Kind::kLlvm;
  for (auto& [module, frames] : todo) {
    // llvm-symbolizer: one block per address, "function\nfile:line:col\n\n"; addr2line -f:
    // "function\nfile:line\n" ("??" and "??:0" or "??:?" when unknown).
    std::vector<std::string> args =
        llvm ? std::vector<std::string>{symbolizer.path, "--obj=" + module, "--no-inlines",
                                        "--demangle", "--output-style=LLVM"}
             : std::vector<std::string>{symbolizer.path, "-e", module, "-f", "-C"};
    for (auto& f : frames) args.push_back("0x" + f.second);
    std::string out = RunCapture(args);
    std::istringstream in(out);
    for (auto& f : frames) {
      std::string func, loc, blank;
      if (!std::getline(in, func) || !std::getline(in, loc)) break;
      if (llvm) std::getline(in, blank);
      if (func == "??") continue;
      std::smatch m;
      std::regex_match(lines[f.first], m, kRaw);
      std::string where = loc.rfind("??", 0) == 0 ? "(" + module + "+0x" + f.second + ")" : loc;
      lines[f.first] = m[1].str() + " in " + func + " " + where;
    }
  }
  std::string result;
  for (const auto& l : lines) result += l + "\n";
  return result;
}

}  // namespace pollen::node
