// pollen coverage COVERAGE_BUILD INPUT... --out=DIR: a corpus's coverage with llvm-cov
// (nightly/coverage_report.h).
#include <cstdio>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/flag_parser.h"
#include "cli/target_setup.h"
#include "nightly/coverage_report.h"

namespace pollen::cli {
namespace {

const char kCoverageHelp[] =
    "Usage: pollen coverage COVERAGE_BUILD FILE_OR_DIR... --out=DIR [flags]\n\n"
    "Runs every input through COVERAGE_BUILD (the harness built with clang\n"
    "-fprofile-instr-generate -fcoverage-mapping and linked with libpollen_coverage_main, or\n"
    "a libFuzzer build of it), then writes into DIR: html/index.html (llvm-cov's report),\n"
    "summary.md and summary.json (line, branch and function totals, and per file), and\n"
    "coverage.profdata. A corpus store? `pollen corpus export STORE DIR` first. Prints the\n"
    "totals. Exit code 0, or 2 when the build or llvm-cov cannot run.\n";

}  // namespace

int CoverageCommand(int argc, char** argv) {
  std::string out;
  uint32_t timeout = 25;
  bool no_html = false;
  FlagParser parser("coverage");
  parser.Add("out", &out, "the report's directory (created)");
  parser.Add("timeout", &timeout, "seconds one input may run");
  parser.Add("no_html", &no_html, "no HTML report, only the summaries");
  std::vector<std::string> positional;
  bool help = false;
  Status parsed = parser.Parse(argc, argv, &positional, &help);
  if (help) {
    std::printf("%s\nFlags:\n%s", kCoverageHelp, parser.Usage().c_str());
    return kExitOk;
  }
  if (!parsed.ok()) return UsageError(parsed.message());
  if (positional.size() < 2) {
    return UsageError("pollen coverage needs a COVERAGE_BUILD and inputs (see --help)");
  }
  if (out.empty()) return UsageError("pollen coverage needs --out=DIR");
  if (timeout == 0) return UsageError("--timeout must be at least 1 second");
  nightly::CoverageOptions options;
  options.coverage_build = positional[0];
  options.inputs.assign(positional.begin() + 1, positional.end());
  options.out_dir = out;
  options.timeout_s = timeout;
  options.html = !no_html;
  Result<nightly::CoverageSummary> summary = nightly::MakeCoverageReport(options);
  if (!summary.ok()) return UsageError(summary.status().message());
  std::printf("%s\nreport: %s/%s\n", nightly::DescribeTotals(summary->totals).c_str(), out.c_str(),
              options.html ? "html/index.html" : "summary.md");
  return kExitOk;
}

}  // namespace pollen::cli
