// Symbolizes the frames our runtime prints without a name ("#N 0xPC (MODULE+0xOFF)") with
// llvm-symbolizer, when it is installed. Frames that sanitizers already symbolized, and
// everything else in the report, pass through unchanged.
#ifndef POLLEN_NODE_SYMBOLIZER_H_
#define POLLEN_NODE_SYMBOLIZER_H_

#include <string>

namespace pollen::node {

std::string SymbolizeReport(const std::string& report);

// Path of llvm-symbolizer, or "" when none is found.
const std::string& SymbolizerPath();

}  // namespace pollen::node

#endif  // POLLEN_NODE_SYMBOLIZER_H_
