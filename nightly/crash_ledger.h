// What the nightly knows of a campaign's crashes across nights (docs/nightly.md, "Crashes
// across nights"): each signature once, open or fixed, with the build that keeps its
// reproducer in the controller, the night it was first seen and the build that fixed it. It
// travels from night to night in the report (report.json's "ledger"), so a night needs
// nothing but the previous night's report and the controller.
//
// Thread safety: none.
#ifndef POLLEN_NIGHTLY_CRASH_LEDGER_H_
#define POLLEN_NIGHTLY_CRASH_LEDGER_H_

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/status.h"
#include "controller/client/controller_message.h"

namespace pollen::nightly {

struct LedgerEntry {
  std::string signature;
  std::string kind;
  std::string build;        // the build whose crash table keeps the reproducer
  std::string first_night;  // "" when it was found outside a nightly run
  bool fixed = false;
  std::string fixed_build;  // the first build on which it no longer reproduced
  std::string fixed_night;
};

// What the cleanse found for one open crash on the night's build.
struct CleanseOutcome {
  std::string signature;
  enum class Kind { kReproduces, kFixed, kUnchecked } kind = Kind::kUnchecked;
  std::string now_signature;  // kReproduces: the signature it fails with now
  std::string detail;         // kReproduces: the summary line; kUnchecked: why
};

// A cleanse outcome's name in the night's state ("reproduces", "fixed", "unchecked"), and
// back (a name it does not know is unchecked).
const char* CleanseOutcomeName(CleanseOutcome::Kind kind);
CleanseOutcome::Kind CleanseOutcomeKind(const std::string& name);

// Tonight's crashes against the ledger.
struct NightCrashes {
  std::vector<controller::CrashSummary> fresh;      // signatures never seen before
  std::vector<controller::CrashSummary> regressed;  // fixed once, crashing again
  std::vector<controller::CrashSummary> known;      // open, seen again
};

class CrashLedger {
 public:
  // Adds the crashes the controller keeps for `build` that the ledger lacks, as open
  // (found outside the nightly, or before the ledger was lost).
  void AddKnown(const std::vector<controller::CrashSummary>& crashes, const std::string& build);

  // The open entries, in signature order.
  std::vector<LedgerEntry> Open() const;

  // Marks an entry fixed by `build` when the cleanse found it fixed there.
  void ApplyCleanse(const std::vector<CleanseOutcome>& outcomes, const std::string& build,
                    const std::string& night);

  // Sorts tonight's crashes (of `build`) into fresh, regressed and known, and records the
  // fresh ones and reopens the regressed ones. A crash the cleanse found fixed on `build`
  // itself (a flaky one) is reopened as known, not as a comeback.
  NightCrashes ApplyTonight(const std::vector<controller::CrashSummary>& tonight,
                            const std::string& build, const std::string& night);

  // Forgets the fixed entries beyond the `keep` most recently fixed (a ledger travels in
  // every report and must stay small); open entries are never dropped.
  void DropOldestFixed(size_t keep);

  const std::map<std::string, LedgerEntry>& entries() const { return entries_; }

  nlohmann::json ToJson() const;
  // Errors: not a ledger (a report from elsewhere).
  static Result<CrashLedger> FromJson(const nlohmann::json& json);

 private:
  std::map<std::string, LedgerEntry> entries_;
};

}  // namespace pollen::nightly

#endif  // POLLEN_NIGHTLY_CRASH_LEDGER_H_
