// Symbolizes the frames our runtime prints without a name ("#N 0xPC (MODULE+0xOFF)") with
// llvm-symbolizer when it is installed, else with binutils' addr2line (which reads clang
// 14's DWARF 5 only in part: function names, but no inlined frames and often no lines).
// Frames that sanitizers already symbolized, and everything else in the report, pass
// through unchanged. Symbolized frames make crash signatures stable across builds and
// machines (node/failure.h). The sanitizers are pointed at the same symbolizer
// (node/worker_process.cc).
#ifndef POLLEN_NODE_SYMBOLIZER_H_
#define POLLEN_NODE_SYMBOLIZER_H_

#include <string>

namespace pollen::node {

struct Symbolizer {
  enum class Kind { kNone, kLlvm, kAddr2line };
  Kind kind = Kind::kNone;
  std::string path;
};

// The symbolizer of this machine: llvm-symbolizer (14) first, then addr2line. Found once.
const Symbolizer& FindSymbolizer();

// `report` with its raw frames symbolized by `symbolizer` (unchanged with kNone).
std::string SymbolizeReportWith(const Symbolizer& symbolizer, const std::string& report);

// SymbolizeReportWith(FindSymbolizer(), report).
std::string SymbolizeReport(const std::string& report);

}  // namespace pollen::node

#endif  // POLLEN_NODE_SYMBOLIZER_H_
