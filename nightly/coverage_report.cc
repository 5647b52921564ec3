#include "nightly/coverage_report.h"

#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "nightly/child_process.h"
#include "nightly/json_text.h"
#include "node/text_file.h"

namespace pollen::nightly {
namespace {

namespace fs = std::filesystem;

constexpr char kIgnoredFiles[] = "^/usr/(include|lib)/";

size_t CountInputs(const std::vector<std::string>& inputs) {
  size_t n = 0;
  for (const std::string& in : inputs) {
    std::error_code ec;
    if (!fs::is_directory(in, ec)) {
      n++;
      continue;
    }
    for (fs::directory_iterator it(in, ec), end; !ec && it != end; it.increment(ec)) n++;
  }
  return n;
}

Result<std::string> FindTool(const std::string& name) {
  // Debian's names in $PATH, or LLVM's own directory (Pollen's image has only that).
  std::string path = FindProgram({name + "-14", name, "/usr/lib/llvm-14/bin/" + name});
  if (path.empty()) {
    return Status::Error(name + " (or " + name +
                         "-14) is not installed: it is in Debian's llvm-14 package");
  }
  return path;
}

// Runs a tool whose failure ends the report; its stderr goes to the log.
Status RunTool(const std::vector<std::string>& argv, const std::string& stdout_path,
               const std::string& log, uint64_t timeout_ms) {
  ChildSpec spec;
  spec.argv = argv;
  spec.output_path = stdout_path.empty() ? log : stdout_path;
  spec.error_path = log;
  Result<ChildExit> exit = RunChild(spec, timeout_ms);
  if (!exit.ok()) return exit.status();
  if (exit->exit_code != 0) {
    return Status::Error(fs::path(argv[0]).filename().string() + " failed (" + exit->Describe() +
                         "): see " + log);
  }
  return Status::Ok();
}

CoverageCount CountFromJson(const nlohmann::json& j) {
  CoverageCount c;
  // Read type-safely: a summary may come from a report stored by anyone.
  if (j.is_object()) {
    if (j.contains("covered") && j["covered"].is_number_unsigned()) c.covered = j["covered"];
    if (j.contains("count") && j["count"].is_number_unsigned()) c.count = j["count"];
  }
  return c;
}

CoverageTotals TotalsFromLlvmJson(const nlohmann::json& j) {
  CoverageTotals t;
  if (!j.is_object()) return t;
  auto field = [&](const char* name) { return j.contains(name) ? j[name] : nlohmann::json(); };
  t.lines = CountFromJson(field("lines"));
  t.branches = CountFromJson(field("branches"));
  t.functions = CountFromJson(field("functions"));
  t.regions = CountFromJson(field("regions"));
  return t;
}

// llvm-cov export's JSON: {"data": [{"files": [{"filename", "summary"}], "totals"}]}.
Result<CoverageSummary> ParseLlvmExport(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.contains("data") || !j["data"].is_array() || j["data"].empty()) {
    return Status::Error("llvm-cov export printed something that is not its JSON");
  }
  const nlohmann::json& data = j["data"][0];
  CoverageSummary s;
  s.totals = TotalsFromLlvmJson(data.value("totals", nlohmann::json()));
  if (data.contains("files") && data["files"].is_array()) {
    for (const nlohmann::json& f : data["files"]) {
      if (!f.is_object() || !f.contains("filename") || !f["filename"].is_string()) continue;
      s.files.push_back({f["filename"].get<std::string>(),
                         TotalsFromLlvmJson(f.value("summary", nlohmann::json()))});
    }
  }
  return s;
}

nlohmann::json CountToJson(const CoverageCount& c) {
  return {{"covered", c.covered}, {"count", c.count}, {"percent", c.Percent()}};
}

nlohmann::json TotalsToJson(const CoverageTotals& t) {
  return {{"lines", CountToJson(t.lines)},
          {"branches", CountToJson(t.branches)},
          {"functions", CountToJson(t.functions)},
          {"regions", CountToJson(t.regions)}};
}

std::string Cell(const CoverageCount& c) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%" PRIu64 "/%" PRIu64 " (%.1f%%)", c.covered, c.count,
                c.Percent());
  return buf;
}

}  // namespace

Result<CoverageSummary> MakeCoverageReport(const CoverageOptions& options) {
  std::error_code ec;
  if (!fs::is_regular_file(options.coverage_build, ec)) {
    return Status::Error("coverage build " + options.coverage_build + " is not a file");
  }
  const fs::path out(options.out_dir);
  const fs::path profiles = out / "profiles";
  fs::remove_all(profiles, ec);
  fs::create_directories(profiles, ec);
  if (ec) return Status::Error("cannot create " + profiles.string() + ": " + ec.message());
  const std::string log = (out / "coverage.log").string();
  fs::remove(log, ec);
  Result<std::string> profdata_tool = FindTool("llvm-profdata");
  if (!profdata_tool.ok()) return profdata_tool.status();
  Result<std::string> cov_tool = FindTool("llvm-cov");
  if (!cov_tool.ok()) return cov_tool.status();

  // The coverage build: every input once. A crash costs its process, not the profile
  // (libpollen_coverage_main keeps it), so its exit code is only logged.
  ChildSpec run;
  run.argv = {options.coverage_build, "-runs=0", "-timeout=" + std::to_string(options.timeout_s)};
  for (const std::string& in : options.inputs) run.argv.push_back(in);
  run.extra_env = {"LLVM_PROFILE_FILE=" + (profiles / "cov-%p.profraw").string()};
  run.output_path = log;
  const uint64_t bound_ms =
      (CountInputs(options.inputs) * (uint64_t{options.timeout_s} + 5) + 120) * 1000;
  Result<ChildExit> ran = RunChild(run, bound_ms);
  if (!ran.ok()) return Status::Error("cannot run the coverage build: " + ran.status().message());

  std::vector<std::string> merge = {*profdata_tool, "merge", "-sparse"};
  for (fs::directory_iterator it(profiles, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".profraw" && it->file_size(ec) > 0) {
      merge.push_back(it->path().string());
    }
  }
  if (merge.size() == 3) {
    return Status::Error("the coverage build " + options.coverage_build + " wrote no profile (" +
                         ran->Describe() +
                         "): is it built with -fprofile-instr-generate -fcoverage-mapping? "
                         "See " +
                         log);
  }
  const std::string profdata = (out / "coverage.profdata").string();
  merge.insert(merge.end(), {"-o", profdata});
  Status merged = RunTool(merge, "", log, 600'000);
  if (!merged.ok()) return merged;

  const std::string exported = (out / "llvm-cov-export.json").string();
  fs::remove(exported, ec);
  Status exported_ok =
      RunTool({*cov_tool, "export", "-summary-only", "-instr-profile=" + profdata,
               std::string("-ignore-filename-regex=") + kIgnoredFiles, options.coverage_build},
              exported, log, 600'000);
  if (!exported_ok.ok()) return exported_ok;
  Result<std::string> text = node::ReadTextFile(exported);
  if (!text.ok()) return text.status();
  Result<CoverageSummary> summary = ParseLlvmExport(*text);
  if (!summary.ok()) return summary.status();
  fs::remove(exported, ec);

  if (options.html) {
    fs::remove_all(out / "html", ec);
    Status html =
        RunTool({*cov_tool, "show", "-format=html", "-show-branches=count",
                 "-output-dir=" + (out / "html").string(), "-instr-profile=" + profdata,
                 std::string("-ignore-filename-regex=") + kIgnoredFiles, options.coverage_build},
                "", log, 600'000);
    if (!html.ok()) return html;
  }
  fs::remove_all(profiles, ec);

  Status json_written = node::WriteTextFile((out / "summary.json").string(),
                                            JsonText(CoverageSummaryToJson(*summary)) + "\n");
  if (!json_written.ok()) return json_written;
  Status md_written =
      node::WriteTextFile((out / "summary.md").string(), CoverageSummaryMarkdown(*summary));
  if (!md_written.ok()) return md_written;
  return summary;
}

nlohmann::json CoverageSummaryToJson(const CoverageSummary& summary) {
  nlohmann::json files = nlohmann::json::array();
  for (const FileCoverage& f : summary.files) {
    files.push_back({{"file", f.file}, {"totals", TotalsToJson(f.totals)}});
  }
  return {{"totals", TotalsToJson(summary.totals)}, {"files", files}};
}

Result<CoverageSummary> CoverageSummaryFromJson(const nlohmann::json& json) {
  if (!json.is_object() || !json.contains("totals")) {
    return Status::Error("not a coverage summary (no totals)");
  }
  CoverageSummary s;
  s.totals = TotalsFromLlvmJson(json["totals"]);
  if (json.contains("files") && json["files"].is_array()) {
    for (const nlohmann::json& f : json["files"]) {
      if (!f.is_object() || !f.contains("file") || !f["file"].is_string()) continue;
      s.files.push_back(
          {f["file"].get<std::string>(), TotalsFromLlvmJson(f.value("totals", nlohmann::json()))});
    }
  }
  return s;
}

std::string DescribeTotals(const CoverageTotals& t) {
  return "lines " + Cell(t.lines) + ", branches " + Cell(t.branches) + ", functions " +
         Cell(t.functions);
}

std::string CoverageSummaryMarkdown(const CoverageSummary& summary) {
  std::string md = "| file | lines | branches | functions |\n|---|---|---|---|\n";
  for (const FileCoverage& f : summary.files) {
    md += "| " + f.file + " | " + Cell(f.totals.lines) + " | " + Cell(f.totals.branches) + " | " +
          Cell(f.totals.functions) + " |\n";
  }
  md += "| **total** | " + Cell(summary.totals.lines) + " | " + Cell(summary.totals.branches) +
        " | " + Cell(summary.totals.functions) + " |\n";
  return md;
}

}  // namespace pollen::nightly
