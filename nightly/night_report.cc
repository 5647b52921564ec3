#include "nightly/night_report.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "nightly/coverage_report.h"
#include "nightly/json_text.h"

namespace pollen::nightly {
namespace {

nlohmann::json FindingJson(const CrashFinding& f) {
  return {{"signature", f.crash.signature},
          {"kind", f.crash.kind},
          {"count", f.crash.count},
          {"first_seen_unix_ms", f.crash.first_seen_unix_ms},
          {"reproducer", f.reproducer},
          {"summary", f.summary},
          {"stack", f.stack}};
}

std::string Signed(int64_t v) { return (v > 0 ? "+" : "") + std::to_string(v); }

// One coverage row: "| lines | 412/1020 (40.4%) | 400/1020 (39.2%) | +12 |".
std::string CoverageRow(const char* name, const CoverageCount& now, const CoverageCount* before) {
  char cell[96];
  std::snprintf(cell, sizeof(cell), "%" PRIu64 "/%" PRIu64 " (%.1f%%)", now.covered, now.count,
                now.Percent());
  std::string row = std::string("| ") + name + " | " + cell + " | ";
  if (before) {
    std::snprintf(cell, sizeof(cell), "%" PRIu64 "/%" PRIu64 " (%.1f%%)", before->covered,
                  before->count, before->Percent());
    // Covered counts and percentages both: a build that dropped code changes the totals.
    std::snprintf(
        cell + std::strlen(cell), sizeof(cell) - std::strlen(cell), " | %s (%+.1f pp)",
        Signed(static_cast<int64_t>(now.covered) - static_cast<int64_t>(before->covered)).c_str(),
        now.Percent() - before->Percent());
    row += cell;
  } else {
    row += "— | —";
  }
  return row + " |\n";
}

void AppendFindings(std::ostringstream& md, const char* title, const std::string& campaign,
                    const std::vector<CrashFinding>& findings) {
  if (findings.empty()) return;
  md << "\n## " << title << " (" << findings.size() << ")\n";
  for (const CrashFinding& f : findings) {
    md << "\n### " << f.crash.kind << " `" << f.crash.signature << "`\n\n";
    if (!f.summary.empty()) md << f.summary << "\n\n";
    md << "Reproducer: `" << (f.reproducer.empty() ? "(not saved)" : f.reproducer) << "`, "
       << f.crash.count << " report(s)";
    if (f.crash.nodes) md << " from " << f.crash.nodes << " node(s)";
    md << ". Keep it as a regression test: `pollen crashes export " << campaign << " DIR`.\n";
    if (!f.stack.empty()) {
      md << "\n```\n";
      for (const std::string& line : f.stack) md << line << "\n";
      md << "```\n";
    }
  }
}

}  // namespace

CrashFinding DescribeCrash(const controller::CrashSummary& crash, const std::string& report,
                           size_t max_frames) {
  CrashFinding f;
  f.crash = crash;
  std::istringstream lines(report);
  std::string line;
  while (std::getline(lines, line)) {
    if (f.summary.empty() && (line.find("ERROR") != std::string::npos ||
                              line.find("runtime error") != std::string::npos ||
                              line.find("deadly signal") != std::string::npos)) {
      // Without the sanitizers' "==PID==" prefix (no std::regex: its recursion per repeated
      // character would let a long line from a node overflow the stack).
      size_t start = line.find_first_not_of(' ');
      if (start != std::string::npos && line[start] == '=') {
        start = line.find_first_not_of('=', start);
        start =
            line.find_first_not_of("0123456789", start == std::string::npos ? line.size() : start);
        start = line.find_first_not_of('=', start == std::string::npos ? line.size() : start);
        start = line.find_first_not_of(' ', start == std::string::npos ? line.size() : start);
      }
      f.summary = start == std::string::npos ? "" : line.substr(start);
    }
    const size_t hash = line.find_first_not_of(' ');
    if (hash != std::string::npos && line[hash] == '#' && f.stack.size() < max_frames) {
      f.stack.push_back(line.substr(hash));
    }
  }
  if (f.summary.empty()) {
    std::istringstream again(report);
    while (std::getline(again, line) && line.empty()) {
    }
    f.summary = line;
  }
  f.summary = CutUtf8(f.summary, 300);
  for (std::string& frame : f.stack) frame = CutUtf8(frame, 300);
  return f;
}

NightReport BuildNightReport(const NightReportInput& in) {
  const NightState& s = *in.state;
  NightReport out;
  std::vector<std::string> problems = s.problems;
  problems.insert(problems.end(), in.problems.begin(), in.problems.end());

  // Timeouts and OOMs are crashes, and a pipeline must not stay green over them.
  uint64_t timeouts = 0, ooms = 0;
  auto count_kind = [&](const controller::CrashSummary& c) {
    timeouts += c.kind == "timeout";
    ooms += c.kind == "oom";
  };
  for (const CrashFinding& f : in.fresh) count_kind(f.crash);
  for (const CrashFinding& f : in.regressed) count_kind(f.crash);
  for (const controller::CrashSummary& c : in.known) count_kind(c);
  if (timeouts || ooms) {
    problems.push_back("tonight's build hit " + std::to_string(timeouts) + " timeout(s) and " +
                       std::to_string(ooms) + " out-of-memory crash(es)");
  }

  const bool broke = !in.fresh.empty() || !in.regressed.empty();
  out.exit_code = broke ? kNightNewCrash : (problems.empty() ? kNightOk : kNightFailed);
  const std::string verdict = broke ? "new-crashes" : (problems.empty() ? "ok" : "failed");

  nlohmann::json fixed = nlohmann::json::array();
  for (const LedgerEntry& e : in.fixed) {
    fixed.push_back({{"signature", e.signature},
                     {"kind", e.kind},
                     {"first_night", e.first_night},
                     {"fixed_build", e.fixed_build}});
  }
  nlohmann::json known = nlohmann::json::array();
  for (const controller::CrashSummary& c : in.known) {
    known.push_back({{"signature", c.signature}, {"kind", c.kind}, {"count", c.count}});
  }
  nlohmann::json still_open = nlohmann::json::array();
  for (const LedgerEntry& e : in.ledger->Open()) {
    still_open.push_back({{"signature", e.signature},
                          {"kind", e.kind},
                          {"first_night", e.first_night},
                          {"build", e.build}});
  }
  nlohmann::json fresh = nlohmann::json::array(), regressed = nlohmann::json::array();
  for (const CrashFinding& f : in.fresh) fresh.push_back(FindingJson(f));
  for (const CrashFinding& f : in.regressed) regressed.push_back(FindingJson(f));

  nlohmann::json& j = out.json;
  j["campaign"] = s.campaign;
  j["night"] = s.night;
  j["build_id"] = s.build_id;
  j["previous_night"] = s.previous_night;
  j["verdict"] = verdict;
  j["exit_code"] = out.exit_code;
  j["problems"] = problems;
  j["new_crashes"] = fresh;
  j["regressed_crashes"] = regressed;
  j["fixed_crashes"] = fixed;
  j["open_crashes"] = still_open;
  j["seen_again"] = known;
  // On the cluster, the nodes of tonight's build the controller saw.
  const uint32_t nodes = in.campaign->cluster ? s.fuzz.nodes_started : in.campaign->nodes;
  j["fuzzing"] = {{"budget_s", in.campaign->budget_s},     {"elapsed_s", s.fuzz.elapsed_s},
                  {"on_cluster", in.campaign->cluster},    {"nodes", nodes},
                  {"nodes_died", s.fuzz.nodes_died},       {"runs", s.fuzz.runs},
                  {"node_failures", s.fuzz.node_failures}, {"executions", in.executions}};
  nlohmann::json sanitizers = nlohmann::json::array();
  for (const SanitizeFinding& f : s.sanitize.findings) {
    sanitizers.push_back(
        {{"sanitizer", f.sanitizer}, {"signature", f.signature}, {"kind", f.kind}});
  }
  j["sanitizer_crashes"] = sanitizers;
  j["corpus"] = {{"carried_from_build", s.carry.from_build},
                 {"carried_entries", s.carry.entries},
                 {"entries_before_merge", s.merge.entries_before},
                 {"entries", s.merge.entries_after},
                 {"features", s.merge.features}};
  j["coverage"] = s.coverage.summary.is_object()
                      ? s.coverage.summary.value("totals", nlohmann::json())
                      : nlohmann::json();
  j["previous_coverage"] = s.previous_coverage;
  j["ledger"] = in.ledger->ToJson();

  std::ostringstream md;
  md << "# Pollen nightly: " << s.campaign << ", night of " << s.night << "\n\n";
  if (broke) {
    md << "**" << in.fresh.size() << " new crash(es)";
    if (!in.regressed.empty()) md << ", " << in.regressed.size() << " came back";
    md << "** (exit code " << out.exit_code << ")\n";
  } else if (!problems.empty()) {
    md << "**The night did not do its job** (exit code " << out.exit_code << ")\n";
  } else {
    md << "**Nothing new broke** (exit code 0)\n";
  }
  md << "\nBuild `" << s.build_id << "`";
  if (!s.previous_night.empty()) md << "; the previous night was " << s.previous_night;
  md << ".\n";
  if (!problems.empty()) {
    md << "\n## Problems\n\n";
    for (const std::string& p : problems) md << "- " << p << "\n";
  }
  AppendFindings(md, "New crashes", s.campaign, in.fresh);
  AppendFindings(md, "Crashes that came back", s.campaign, in.regressed);
  if (!in.fixed.empty()) {
    md << "\n## Fixed (" << in.fixed.size()
       << ")\n\n| kind | signature | first seen | fixed in build |\n"
       << "|---|---|---|---|\n";
    for (const LedgerEntry& e : in.fixed) {
      md << "| " << e.kind << " | `" << e.signature << "` | "
         << (e.first_night.empty() ? "before the nightly" : e.first_night) << " | `"
         << e.fixed_build << "` |\n";
    }
  }
  const std::vector<LedgerEntry> open = in.ledger->Open();
  if (!open.empty()) {
    md << "\n## Open (" << open.size() << ")\n\n| kind | signature | first seen |\n|---|---|---|\n";
    for (const LedgerEntry& e : open) {
      md << "| " << e.kind << " | `" << e.signature << "` | "
         << (e.first_night.empty() ? "before the nightly" : e.first_night) << " |\n";
    }
  }
  md << "\n## Fuzzing\n\n"
     << "- " << s.fuzz.elapsed_s << " s of a " << in.campaign->budget_s << " s budget on " << nodes
     << " node(s)" << (in.campaign->cluster ? " of the cluster" : "")
     << (s.fuzz.runs > 1 ? " (resumed)" : "") << ", " << in.executions << " executions";
  if (s.fuzz.nodes_died) md << "; " << s.fuzz.nodes_died << " node(s) died";
  md << "\n";
  for (const auto& [name, path] : in.campaign->sanitizer_builds) {
    size_t found = 0;
    for (const SanitizeFinding& f : s.sanitize.findings) found += f.sanitizer == name;
    md << "- sanitizer build " << name << ": the merged corpus (" << s.sanitize.inputs
       << " inputs) run on it, " << found << " crash(es)\n";
  }
  md << "\n## Corpus\n\n";
  if (!s.carry.from_build.empty()) {
    md << "- carried " << s.carry.entries << " input(s) from build `" << s.carry.from_build
       << "`\n";
  }
  if (s.merge.done && s.merge.error.empty()) {
    md << "- merged: " << s.merge.entries_before << " → " << s.merge.entries_after << " inputs, "
       << s.merge.features << " features\n";
  }
  if (s.coverage.summary.is_object()) {
    Result<CoverageSummary> now = CoverageSummaryFromJson(s.coverage.summary);
    Result<CoverageSummary> before =
        s.previous_coverage.is_object()
            ? CoverageSummaryFromJson(nlohmann::json{{"totals", s.previous_coverage}})
            : Result<CoverageSummary>(Status::Error("none"));
    if (now.ok()) {
      md << "\n## Coverage\n\n| | tonight | last night | change |\n|---|---|---|---|\n";
      md << CoverageRow("lines", now->totals.lines, before.ok() ? &before->totals.lines : nullptr);
      md << CoverageRow("branches", now->totals.branches,
                        before.ok() ? &before->totals.branches : nullptr);
      md << CoverageRow("functions", now->totals.functions,
                        before.ok() ? &before->totals.functions : nullptr);
      md << "\nThe whole report: `coverage/html/index.html` in the night's directory.\n";
    }
  } else if (s.coverage.skipped) {
    md << "\n## Coverage\n\nNo coverage build in the campaign file (builds.coverage).\n";
  }
  out.markdown = md.str();
  return out;
}

}  // namespace pollen::nightly
