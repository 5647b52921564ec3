// Coverage of a corpus in a coverage build (docs/nightly.md, "Coverage"): `pollen coverage`
// and the nightly's coverage step.
//
// The coverage build is the harness compiled with -fprofile-instr-generate
// -fcoverage-mapping and linked with libpollen_coverage_main (pollen_add_coverage_target), or
// any program that runs the files and directories it is given (a libFuzzer build with
// -runs=0 does). MakeCoverageReport runs it on the inputs with LLVM_PROFILE_FILE in the
// output directory, merges the profiles with llvm-profdata, and asks llvm-cov for the
// totals (lines, branches, functions, regions; per file too) and, optionally, for the HTML
// report. What it writes in `out_dir`:
//   coverage.profdata   the merged profile
//   summary.json        CoverageSummary as JSON (CoverageSummaryToJson)
//   summary.md          the totals and the files, as a Markdown table
//   html/index.html     llvm-cov's HTML report (with html)
//   coverage.log        what the coverage build and the tools printed
// Files under /usr/include and /usr/lib (the C++ library's headers) are left out.
#ifndef POLLEN_NIGHTLY_COVERAGE_REPORT_H_
#define POLLEN_NIGHTLY_COVERAGE_REPORT_H_

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "base/status.h"

namespace pollen::nightly {

struct CoverageOptions {
  std::string coverage_build;
  std::vector<std::string> inputs;  // files and directories of inputs
  std::string out_dir;              // created if needed
  uint32_t timeout_s = 25;          // per input
  bool html = true;
};

struct CoverageCount {
  uint64_t covered = 0;
  uint64_t count = 0;
  double Percent() const { return count ? 100.0 * covered / count : 0.0; }
};

struct CoverageTotals {
  CoverageCount lines, branches, functions, regions;
};

struct FileCoverage {
  std::string file;
  CoverageTotals totals;
};

struct CoverageSummary {
  CoverageTotals totals;
  std::vector<FileCoverage> files;  // in llvm-cov's order (by path)
};

// Runs the build, the merge and the reports. Errors: the build or a tool cannot run (the
// message names it and points at coverage.log), no profile was written (not a coverage
// build?), llvm-cov's answer cannot be read.
Result<CoverageSummary> MakeCoverageReport(const CoverageOptions& options);

nlohmann::json CoverageSummaryToJson(const CoverageSummary& summary);
Result<CoverageSummary> CoverageSummaryFromJson(const nlohmann::json& json);

// "lines 412/1020 (40.4%), branches 120/400 (30.0%), functions 30/61 (49.2%)"
std::string DescribeTotals(const CoverageTotals& totals);

// The totals and one row per file, as Markdown.
std::string CoverageSummaryMarkdown(const CoverageSummary& summary);

}  // namespace pollen::nightly

#endif  // POLLEN_NIGHTLY_COVERAGE_REPORT_H_
