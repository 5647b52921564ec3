#include "nightly/crash_ledger.h"

#include <gtest/gtest.h>

#include "nightly/json_text.h"

namespace pollen::nightly {
namespace {

controller::CrashSummary Crash(const std::string& signature, const std::string& kind = "SEGV") {
  controller::CrashSummary c;
  c.signature = signature;
  c.kind = kind;
  return c;
}

std::vector<std::string> Signatures(const std::vector<controller::CrashSummary>& crashes) {
  std::vector<std::string> out;
  for (const auto& c : crashes) out.push_back(c.signature);
  return out;
}

TEST(CrashLedgerTest, ACrashIsNewOnceThenKnownThenFixedThenBack) {
  CrashLedger ledger;
  NightCrashes n1 = ledger.ApplyTonight({Crash("a")}, "b1", "2026-11-01");
  EXPECT_EQ(Signatures(n1.fresh), std::vector<std::string>{"a"});
  EXPECT_EQ(ledger.entries().at("a").first_night, "2026-11-01");
  EXPECT_EQ(ledger.entries().at("a").build, "b1");

  NightCrashes n2 = ledger.ApplyTonight({Crash("a"), Crash("b")}, "b2", "2026-11-02");
  EXPECT_EQ(Signatures(n2.known), std::vector<std::string>{"a"});
  EXPECT_EQ(Signatures(n2.fresh), std::vector<std::string>{"b"});

  CleanseOutcome fixed;
  fixed.signature = "a";
  fixed.kind = CleanseOutcome::Kind::kFixed;
  CleanseOutcome still;
  still.signature = "b";
  still.kind = CleanseOutcome::Kind::kReproduces;
  ledger.ApplyCleanse({fixed, still}, "b3", "2026-11-03");
  EXPECT_TRUE(ledger.entries().at("a").fixed);
  EXPECT_EQ(ledger.entries().at("a").fixed_build, "b3");
  EXPECT_FALSE(ledger.entries().at("b").fixed);
  ASSERT_EQ(ledger.Open().size(), 1u);
  EXPECT_EQ(ledger.Open()[0].signature, "b");

  NightCrashes n4 = ledger.ApplyTonight({Crash("a")}, "b4", "2026-11-04");
  EXPECT_EQ(Signatures(n4.regressed), std::vector<std::string>{"a"});
  EXPECT_FALSE(ledger.entries().at("a").fixed);
  EXPECT_EQ(ledger.entries().at("a").build, "b4")
      << "its reproducer is on the build it came back on";
  EXPECT_EQ(ledger.entries().at("a").first_night, "2026-11-01");
}

TEST(CrashLedgerTest, AFlakyCrashTheCleanseMissedIsReopenedNotACameBack) {
  CrashLedger ledger;
  ledger.ApplyTonight({Crash("a")}, "b1", "2026-11-01");
  CleanseOutcome fixed;
  fixed.signature = "a";
  fixed.kind = CleanseOutcome::Kind::kFixed;
  ledger.ApplyCleanse({fixed}, "b2", "2026-11-02");
  NightCrashes n2 = ledger.ApplyTonight({Crash("a")}, "b2", "2026-11-02");
  EXPECT_TRUE(n2.regressed.empty());
  EXPECT_EQ(Signatures(n2.known), std::vector<std::string>{"a"});
  EXPECT_FALSE(ledger.entries().at("a").fixed);
}

TEST(CrashLedgerTest, OnlyTheOldestFixedEntriesAreForgotten) {
  CrashLedger ledger;
  ledger.ApplyTonight({Crash("a"), Crash("b"), Crash("c"), Crash("open")}, "b1", "2026-11-01");
  for (const auto& [sig, night] : std::vector<std::pair<std::string, std::string>>{
           {"a", "2026-11-03"}, {"b", "2026-11-02"}, {"c", "2026-11-04"}}) {
    CleanseOutcome fixed;
    fixed.signature = sig;
    fixed.kind = CleanseOutcome::Kind::kFixed;
    ledger.ApplyCleanse({fixed}, "b-" + night, night);
  }
  ledger.DropOldestFixed(2);
  EXPECT_EQ(ledger.entries().count("b"), 0u);
  EXPECT_EQ(ledger.entries().count("a"), 1u);
  EXPECT_EQ(ledger.entries().count("c"), 1u);
  EXPECT_EQ(ledger.entries().count("open"), 1u);
  ledger.DropOldestFixed(0);
  EXPECT_EQ(ledger.entries().size(), 1u);
}

TEST(CrashLedgerTest, KnownCrashesFromTheControllerNeverOverrideTheLedger) {
  CrashLedger ledger;
  ledger.ApplyTonight({Crash("a")}, "b1", "2026-11-01");
  ledger.AddKnown({Crash("a", "ABRT"), Crash("z", "timeout")}, "b0");
  EXPECT_EQ(ledger.entries().at("a").kind, "SEGV");
  EXPECT_EQ(ledger.entries().at("a").build, "b1");
  EXPECT_EQ(ledger.entries().at("z").build, "b0");
  EXPECT_EQ(ledger.entries().at("z").first_night, "");
  EXPECT_EQ(ledger.Open().size(), 2u);
}

TEST(CrashLedgerTest, ItTravelsAsJsonAndRefusesWhatIsNotALedger) {
  CrashLedger ledger;
  ledger.ApplyTonight({Crash("a"), Crash("b", "oom")}, "b1", "2026-11-01");
  CleanseOutcome fixed;
  fixed.signature = "a";
  fixed.kind = CleanseOutcome::Kind::kFixed;
  ledger.ApplyCleanse({fixed}, "b2", "2026-11-02");
  Result<CrashLedger> back = CrashLedger::FromJson(nlohmann::json::parse(ledger.ToJson().dump()));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->ToJson(), ledger.ToJson());
  EXPECT_TRUE(back->entries().at("a").fixed);

  EXPECT_FALSE(CrashLedger::FromJson(nlohmann::json::object()).ok());
  EXPECT_FALSE(CrashLedger::FromJson(nlohmann::json::parse(R"([1, 2])")).ok());
  EXPECT_FALSE(CrashLedger::FromJson(nlohmann::json::parse(R"([{"kind": "SEGV"}])")).ok());
  EXPECT_FALSE(CrashLedger::FromJson(nlohmann::json::parse(R"([{"signature": 5}])")).ok());
  // A null ledger (a report without one) is refused too, not taken as empty.
  EXPECT_FALSE(CrashLedger::FromJson(nlohmann::json()).ok());
}

// Text from targets and peers may be any bytes: written as JSON, it never throws.
TEST(JsonTextTest, BytesThatAreNotUtf8BecomeReplacementCharacters) {
  nlohmann::json j = {{"summary", std::string("bad \xff\xfe bytes")}};
  std::string text;
  ASSERT_NO_THROW(text = JsonText(j, -1));
  EXPECT_EQ(text, "{\"summary\":\"bad \xef\xbf\xbd\xef\xbf\xbd bytes\"}");
  EXPECT_EQ(CutUtf8("a\xc3\xa9", 2), "a");  // not inside the two bytes of 'e acute'
  EXPECT_EQ(CutUtf8("abc", 5), "abc");
}

}  // namespace
}  // namespace pollen::nightly
