// `pollen nightly` and `pollen coverage` end to end: a controller, three nights of three
// builds of tests/targets/nightly_versions.cc (bug A; A fixed; bug B added), a night killed
// and resumed, bad campaign files, and coverage totals against llvm-cov's own.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "base/sha1.h"
#include "tests/http_receiver.h"
#include "tests/test_util.h"

namespace pollen::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr int kNightDeadlineS = 180;

std::string Build(int night) { return TestTarget("nightly_v" + std::to_string(night)); }
std::string CoverageBuild(int night) {
  return std::string(TEST_TARGETS_DIR) + "/nightly_v" + std::to_string(night) + "_cov";
}

nlohmann::json ReadJson(const std::string& path) {
  return nlohmann::json::parse(ReadFile(path), nullptr, false);
}

std::set<std::string> Signatures(const nlohmann::json& list) {
  std::set<std::string> out;
  for (const auto& c : list) out.insert(c.value("signature", ""));
  return out;
}

bool Alive(int pid) { return pid > 0 && kill(pid, 0) == 0; }

class NightlyTest : public ::testing::Test {
 protected:
  NightlyTest() : dir_(MakeTempDir()) {}
  ~NightlyTest() override {
    controller_.reset();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  void SetUp() override {
    controller_ = std::make_unique<Background>(std::vector<std::string>{
        PollenBin(), "controller", "--listen=tcp://127.0.0.1:*", "--data=" + dir_ + "/data",
        "--insecure-plaintext", "--status-every=0", "--merge-every=0"});
    ASSERT_TRUE(controller_->WaitForOutput("listening on", 30)) << controller_->output();
    const long port =
        NumberAfter(controller_->output(), "listening on tcp://127\\.0\\.0\\.1:([0-9]+)");
    ASSERT_GT(port, 0) << controller_->output();
    endpoint_ = "tcp://127.0.0.1:" + std::to_string(port);
    fs::create_directories(dir_ + "/seeds");
    WriteFile(dir_ + "/seeds/get", "get");
  }

  // A campaign file for the night-1 build; later nights give --build.
  std::string CampaignFile(const std::string& name, const std::string& budget, uint32_t nodes = 1,
                           const std::string& webhook = "") {
    const std::string path = dir_ + "/" + name + ".yaml";
    WriteFile(path, "campaign: " + name + "\n" +
                        "target: nightly_fuzzer\n"
                        "builds:\n"
                        "  fuzz: " +
                        Build(1) + "\n" + "  coverage: " + CoverageBuild(1) + "\n" +
                        "seeds: seeds\n"
                        "budget: " +
                        budget + "\n" + "nodes: " + std::to_string(nodes) + "\n" + "workers: 1\n" +
                        (webhook.empty() ? "" : "notify: {webhook: '" + webhook + "'}\n"));
    return path;
  }

  std::vector<std::string> Nightly(const std::string& file, const std::string& night, int build) {
    return {PollenBin(),
            "nightly",
            "--campaign=" + file,
            "--controller=" + endpoint_,
            "--insecure-plaintext",
            "--state=" + state_,
            "--night=" + night,
            "--build=" + Build(build),
            "--coverage-build=" + CoverageBuild(build)};
  }

  CommandResult RunNight(const std::string& file, const std::string& night, int build) {
    CommandResult r = RunCommand(Nightly(file, night, build), kNightDeadlineS);
    controller_->ReadFor(0);
    return r;
  }

  // The pids of a running night's nodes, from its state, where they are saved as the nodes
  // start (at most 10 s of waiting, reading the night's output meanwhile).
  std::vector<int> NodePids(Background& night, const std::string& night_json) {
    std::vector<int> pids;
    for (int i = 0; i < 200 && pids.empty(); i++) {
      nlohmann::json state = ReadJson(night_json);
      if (state.is_object()) pids = state["fuzz"].value("pids", std::vector<int>{});
      if (pids.empty()) night.ReadFor(50);
    }
    return pids;
  }

  std::string NightDir(const std::string& campaign, const std::string& night) {
    return state_ + "/" + campaign + "/" + night;
  }

  std::string dir_;
  std::string state_ = dir_ + "/state";
  std::string endpoint_;
  std::unique_ptr<Background> controller_;
};

TEST_F(NightlyTest, ThreeNightsFindABugSeeItFixedAndFindANewOne) {
  // The webhook's first answer is a server error: the nightly tries again.
  Receiver webhook({500});
  const std::string file = CampaignFile("nv", "6s", 2, webhook.url());

  // Night 1: bug A.
  CommandResult n1 = RunNight(file, "2026-11-01", 1);
  ASSERT_EQ(n1.exit_code, 1) << n1.output;
  EXPECT_THAT(n1.output, HasSubstr("1 new crash(es)"));
  nlohmann::json r1 = ReadJson(NightDir("nv", "2026-11-01") + "/report.json");
  ASSERT_EQ(r1["new_crashes"].size(), 1u) << r1.dump(2);
  const nlohmann::json& a = r1["new_crashes"][0];
  EXPECT_EQ(a["kind"], "SEGV");
  EXPECT_THAT(a["stack"].dump(), HasSubstr("BugA"));
  EXPECT_TRUE(fs::exists(NightDir("nv", "2026-11-01") + "/" + a["reproducer"].get<std::string>()));
  EXPECT_EQ(r1["verdict"], "new-crashes");
  EXPECT_GT(r1["fuzzing"]["executions"].get<uint64_t>(), 0u);
  EXPECT_GT(r1["coverage"]["lines"]["covered"].get<uint64_t>(), 0u);
  EXPECT_TRUE(fs::exists(NightDir("nv", "2026-11-01") + "/coverage/html/index.html"));

  // Night 2: A fixed, nothing new; the corpus carried over and run first.
  CommandResult n2 = RunNight(file, "2026-11-02", 2);
  ASSERT_EQ(n2.exit_code, 0) << n2.output;
  EXPECT_THAT(n2.output, HasSubstr("Nothing new broke"));
  nlohmann::json r2 = ReadJson(NightDir("nv", "2026-11-02") + "/report.json");
  EXPECT_TRUE(r2["new_crashes"].empty()) << r2.dump(2);
  ASSERT_EQ(r2["fixed_crashes"].size(), 1u) << r2.dump(2);
  EXPECT_EQ(r2["fixed_crashes"][0]["signature"], a["signature"]);
  EXPECT_EQ(r2["previous_night"], "2026-11-01");
  const uint64_t carried = r2["corpus"]["carried_entries"].get<uint64_t>();
  EXPECT_GT(carried, 1u);
  EXPECT_GE(r2["coverage"]["lines"]["percent"].get<double>(),
            r1["coverage"]["lines"]["percent"].get<double>());
  // Not re-found from scratch: before its first fuzzing execution, the node had run the
  // carried inputs and reached the features the whole night ended with.
  const std::string log2 = ReadFile(NightDir("nv", "2026-11-02") + "/nodes/0.log");
  EXPECT_GE(NumberAfter(log2, "([0-9]+) inputs to run first"), static_cast<long>(carried));
  const long inited = NumberAfter(log2, "INITED[^\n]*features: ([0-9]+)");
  EXPECT_GE(inited, static_cast<long>(r2["corpus"]["features"].get<uint64_t>()) * 8 / 10) << log2;

  // Night 3 runs where nights 1 and 2 left nothing (as a Kubernetes job does): it finds the
  // previous night's report, and the crash ledger in it, in the controller.
  state_ = dir_ + "/other-state";
  // Night 3: bug B is new; A stays fixed.
  CommandResult n3 = RunNight(file, "2026-11-03", 3);
  ASSERT_EQ(n3.exit_code, 1) << n3.output;
  nlohmann::json r3 = ReadJson(NightDir("nv", "2026-11-03") + "/report.json");
  ASSERT_EQ(r3["new_crashes"].size(), 1u) << r3.dump(2);
  EXPECT_EQ(r3["new_crashes"][0]["kind"], "ABRT");
  EXPECT_THAT(r3["new_crashes"][0]["stack"].dump(), HasSubstr("BugB"));
  EXPECT_TRUE(r3["fixed_crashes"].empty());
  EXPECT_EQ(Signatures(r3["open_crashes"]),
            std::set<std::string>{r3["new_crashes"][0]["signature"].get<std::string>()});
  bool a_fixed_in_ledger = false;
  for (const auto& e : r3["ledger"])
    a_fixed_in_ledger |= e["signature"] == a["signature"] && e["fixed"];
  EXPECT_TRUE(a_fixed_in_ledger) << r3["ledger"].dump(2);
  EXPECT_EQ(r3["previous_night"], "2026-11-02");
  EXPECT_EQ(r3["previous_coverage"], r2["coverage"]);

  // One notification per signature and event, however many nodes saw the crash.
  std::vector<std::string> events;
  for (const std::string& body : webhook.bodies()) {
    nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
    events.push_back(j.value("event", "?") + " " + j.value("signature", "?") + " " +
                     j.value("night", "?"));
    EXPECT_THAT(j.value("text", ""), HasSubstr("Pollen nightly: nv"));
  }
  const std::string sig_a = a["signature"], sig_b = r3["new_crashes"][0]["signature"];
  EXPECT_EQ(events, (std::vector<std::string>{
                        "new-crash " + sig_a + " 2026-11-01", "new-crash " + sig_a + " 2026-11-01",
                        "fixed " + sig_a + " 2026-11-02", "new-crash " + sig_b + " 2026-11-03"}))
      << "the first POST failed and was sent again; nothing else twice";

  // Every night's report is in the controller.
  CommandResult pulled =
      RunCommand({PollenBin(), "report", "pull", "nv", "--night=2026-11-02",
                  "--out=" + dir_ + "/pulled", "--controller=" + endpoint_, "--insecure-plaintext"},
                 60);
  ASSERT_EQ(pulled.exit_code, 0) << pulled.output;
  EXPECT_THAT(pulled.output, HasSubstr("Nothing new broke"));
  EXPECT_EQ(ReadFile(dir_ + "/pulled/2026-11-02/report.md"),
            ReadFile(NightDir("nv", "2026-11-02").replace(0, state_.size(), dir_ + "/state") +
                     "/report.md"));

  // Run again after its report, a night prints the same report and exits the same way.
  CommandResult again = RunNight(file, "2026-11-03", 3);
  EXPECT_EQ(again.exit_code, 1) << again.output;
  EXPECT_THAT(again.output, HasSubstr(ReadFile(NightDir("nv", "2026-11-03") + "/report.md")));
}

TEST_F(NightlyTest, NightsOnTheClusterMoveTheFollowingNodesToEachNightsBuild) {
  // `nodes: cluster`: the nights start no node; two nodes following the campaign's builds
  // (a StatefulSet's, here processes) fuzz whatever build the night pushes.
  const std::string file = dir_ + "/nc.yaml";
  WriteFile(file, "campaign: nc\ntarget: nightly_fuzzer\nbuilds:\n  fuzz: " + Build(1) +
                      "\n  coverage: " + CoverageBuild(1) +
                      "\nseeds: seeds\nbudget: 8s\nnodes: cluster\n");
  std::vector<std::unique_ptr<Background>> nodes;
  for (int i = 0; i < 2; i++) {
    nodes.push_back(std::make_unique<Background>(std::vector<std::string>{
        PollenBin(), "node", "--follow-builds", "--campaign=nc", "--controller=" + endpoint_,
        "--insecure-plaintext", "--controller-every=1", "--keep-going", "--workers=1",
        "--node-id=follower-" + std::to_string(i),
        "--workdir=" + dir_ + "/f" + std::to_string(i)}));
  }
  for (auto& n : nodes) {
    ASSERT_TRUE(n->WaitForOutput("has no assigned build yet", 30)) << n->output();
  }
  auto build_id = [](const std::string& path) {
    const std::string bytes = ReadFile(path);
    return base::BuildIdOf(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  };
  const std::string id1 = build_id(Build(1)), id2 = build_id(Build(2));

  // Night 1: the nodes move to build 1 and find bug A.
  CommandResult n1 = RunNight(file, "2026-11-01", 1);
  ASSERT_EQ(n1.exit_code, 1) << n1.output;
  nlohmann::json r1 = ReadJson(NightDir("nc", "2026-11-01") + "/report.json");
  ASSERT_EQ(r1["new_crashes"].size(), 1u) << r1.dump(2);
  EXPECT_THAT(r1["new_crashes"][0]["stack"].dump(), HasSubstr("BugA"));
  EXPECT_GT(r1["fuzzing"]["executions"].get<uint64_t>(), 0u);
  EXPECT_FALSE(fs::exists(NightDir("nc", "2026-11-01") + "/nodes")) << "no local node";
  for (auto& n : nodes) {
    n->ReadFor(0);
    EXPECT_THAT(n->output(), HasSubstr("fuzzing build " + id1));
  }

  // Night 2: A fixed; the nodes moved to build 2, running what they had (and the carried
  // corpus, pushed) on it.
  CommandResult n2 = RunNight(file, "2026-11-02", 2);
  ASSERT_EQ(n2.exit_code, 0) << n2.output;
  nlohmann::json r2 = ReadJson(NightDir("nc", "2026-11-02") + "/report.json");
  ASSERT_EQ(r2["fixed_crashes"].size(), 1u) << r2.dump(2);
  EXPECT_TRUE(r2["new_crashes"].empty()) << r2.dump(2);
  EXPECT_GT(r2["corpus"]["carried_entries"].get<uint64_t>(), 1u);
  for (auto& n : nodes) {
    ASSERT_TRUE(n->WaitForOutput("fuzzing build " + id2, 30)) << n->output();
    EXPECT_THAT(n->output(), HasSubstr("this node moves to it"));
    EXPECT_THAT(n->output(), HasSubstr("its entries run again"));
  }
  // Only the build fuzzed now is kept.
  std::vector<std::string> kept;
  for (const auto& e : fs::directory_iterator(dir_ + "/f0/builds")) {
    kept.push_back(e.path().filename().string());
  }
  EXPECT_EQ(kept, std::vector<std::string>{id2});

  // Night 3 with no node following: it says so and fails (exit code 3), bug B or not.
  for (auto& n : nodes) {
    kill(n->pid(), SIGTERM);
    CommandResult end = n->Wait(60);
    EXPECT_EQ(end.exit_code, 0) << end.output;
  }
  CommandResult n3 = RunNight(file, "2026-11-03", 3);
  EXPECT_EQ(n3.exit_code, 3) << n3.output;
  EXPECT_THAT(n3.output, HasSubstr("are nodes following campaign nc"));
}

TEST_F(NightlyTest, ASanitizerBuildFindsWhatTheFuzzingBuildCannotAndIsCleansedOnIt) {
  // Build 2 has no bug its fuzzing build sees; its UBSan build fails on every "list".
  WriteFile(dir_ + "/seeds/list", "list");
  const std::string file = dir_ + "/ns.yaml";
  WriteFile(file, "campaign: ns\ntarget: nightly_fuzzer\nbuilds:\n  fuzz: " + Build(2) +
                      "\n  sanitizers: {ubsan: " + TestTarget("nightly_v2_ubsan") +
                      "}\nseeds: seeds\nbudget: 4s\nnodes: 1\n");

  CommandResult n1 = RunNight(file, "2026-11-01", 2);
  ASSERT_EQ(n1.exit_code, 1) << n1.output;
  EXPECT_THAT(n1.output, HasSubstr("sanitizer build ubsan: the merged corpus"));
  nlohmann::json r1 = ReadJson(NightDir("ns", "2026-11-01") + "/report.json");
  ASSERT_EQ(r1["new_crashes"].size(), 1u) << r1.dump(2);
  const nlohmann::json& ub = r1["new_crashes"][0];
  const std::string signature = ub["signature"];
  EXPECT_EQ(signature.rfind("ubsan-", 0), 0u) << signature;
  EXPECT_EQ(ub["kind"], "undefined-behavior");
  EXPECT_THAT(ub["stack"].dump(), HasSubstr("Command"));
  EXPECT_EQ(ReadFile(NightDir("ns", "2026-11-01") + "/" + ub["reproducer"].get<std::string>())
                .substr(0, 4),
            "list");
  ASSERT_EQ(r1["sanitizer_crashes"].size(), 1u);

  // Night 2: the crash is run on the UBSan build again (on the fuzzing build it would pass
  // and be called fixed): it reproduces, stays open, and nothing new broke.
  CommandResult n2 = RunNight(file, "2026-11-02", 2);
  ASSERT_EQ(n2.exit_code, 0) << n2.output;
  nlohmann::json r2 = ReadJson(NightDir("ns", "2026-11-02") + "/report.json");
  EXPECT_TRUE(r2["fixed_crashes"].empty()) << r2.dump(2);
  EXPECT_TRUE(r2["new_crashes"].empty()) << r2.dump(2);
  EXPECT_EQ(Signatures(r2["open_crashes"]), std::set<std::string>{signature});
  nlohmann::json state = ReadJson(NightDir("ns", "2026-11-02") + "/night.json");
  ASSERT_EQ(state["cleanse"]["records"].size(), 1u) << state.dump(2);
  EXPECT_EQ(state["cleanse"]["records"][0]["outcome"], "reproduces");
}

TEST_F(NightlyTest, ANightKilledWhileFuzzingResumesAndEndsWithTheSameFindings) {
  // The reference: a night run whole.
  const std::string whole = CampaignFile("whole", "6s");
  CommandResult reference = RunNight(whole, "2026-11-01", 1);
  ASSERT_EQ(reference.exit_code, 1) << reference.output;
  nlohmann::json expected = ReadJson(NightDir("whole", "2026-11-01") + "/report.json");

  const std::string file = CampaignFile("killed", "8s");
  const std::string night_json = NightDir("killed", "2026-11-01") + "/night.json";
  std::vector<int> pids;
  {
    Background night(Nightly(file, "2026-11-01", 1));
    ASSERT_TRUE(night.WaitForOutput("fuzz:", 60)) << night.output();
    pids = NodePids(night, night_json);  // then kill the nightly hard
    ASSERT_FALSE(pids.empty()) << night.output();
    kill(night.pid(), SIGKILL);
    night.Wait(30);
  }
  ASSERT_TRUE(Alive(pids[0])) << "the killed nightly's node should still run";

  CommandResult resumed = RunNight(file, "2026-11-01", 1);
  ASSERT_EQ(resumed.exit_code, 1) << resumed.output;
  EXPECT_THAT(resumed.output, HasSubstr("resuming night 2026-11-01 of killed"));
  EXPECT_FALSE(Alive(pids[0])) << "the leftover node was not stopped";
  nlohmann::json report = ReadJson(NightDir("killed", "2026-11-01") + "/report.json");
  EXPECT_EQ(report["verdict"], expected["verdict"]);
  EXPECT_EQ(Signatures(report["new_crashes"]), Signatures(expected["new_crashes"]));
  EXPECT_EQ(report["fuzzing"]["runs"], 2);
  EXPECT_LE(report["fuzzing"]["elapsed_s"].get<uint64_t>(), 8u);
}

// SIGTERM (a drain, the Job's deadline): the night stops its nodes, saves itself and exits
// 130; run again, it goes on with the rest of its budget.
TEST_F(NightlyTest, SigtermStopsTheNightWhichResumesLater) {
  const std::string file = CampaignFile("drained", "8s");
  const std::string night_json = NightDir("drained", "2026-11-01") + "/night.json";
  Background night(Nightly(file, "2026-11-01", 1));
  ASSERT_TRUE(night.WaitForOutput("fuzz:", 60)) << night.output();
  const std::vector<int> pids = NodePids(night, night_json);
  ASSERT_FALSE(pids.empty()) << night.output();
  kill(night.pid(), SIGTERM);
  CommandResult stopped = night.Wait(60);
  EXPECT_EQ(stopped.exit_code, 130) << stopped.output;
  EXPECT_THAT(stopped.output, HasSubstr("interrupted: the night is saved"));
  EXPECT_FALSE(Alive(pids[0])) << "the night's node outlived it";
  nlohmann::json saved = ReadJson(night_json);
  EXPECT_FALSE(saved["fuzz"]["done"].get<bool>());
  EXPECT_LT(saved["fuzz"]["elapsed_s"].get<uint64_t>(), 8u);

  CommandResult resumed = RunNight(file, "2026-11-01", 1);
  EXPECT_EQ(resumed.exit_code, 1) << resumed.output;
  nlohmann::json report = ReadJson(NightDir("drained", "2026-11-01") + "/report.json");
  EXPECT_EQ(report["fuzzing"]["runs"], 2);
  EXPECT_EQ(report["new_crashes"].size(), 1u) << report.dump(2);
}

// A night that did not do its job says so, in its report and its exit code.
TEST_F(NightlyTest, ANightWhoseBuildCannotFuzzFailsWithExitCode3) {
  const std::string build = dir_ + "/not_a_target";
  WriteFile(build, "#!/bin/sh\nexit 0\n");
  ASSERT_EQ(chmod(build.c_str(), 0755), 0);
  const std::string file = dir_ + "/broken.yaml";
  WriteFile(file, "campaign: broken\nbuilds: {fuzz: " + build + "}\nbudget: 3s\nnodes: 2\n");
  // The previous night's report is damaged: that costs its ledger, not the night.
  fs::create_directories(NightDir("broken", "2026-10-31"));
  WriteFile(NightDir("broken", "2026-10-31") + "/report.json", "[\"not a report\"]");
  CommandResult r =
      RunCommand({PollenBin(), "nightly", "--campaign=" + file, "--controller=" + endpoint_,
                  "--insecure-plaintext", "--state=" + state_, "--night=2026-11-01"},
                 kNightDeadlineS);
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_THAT(r.output, HasSubstr("The night did not do its job"));
  nlohmann::json report = ReadJson(NightDir("broken", "2026-11-01") + "/report.json");
  ASSERT_TRUE(report.is_object()) << r.output;
  EXPECT_EQ(report["verdict"], "failed");
  EXPECT_THAT(report["problems"].dump(), HasSubstr("2 of 2 nodes died"));
  EXPECT_THAT(report["problems"].dump(), HasSubstr("no node of build"));
  EXPECT_THAT(report["problems"].dump(), HasSubstr("the previous night's report"));
  EXPECT_EQ(report["previous_night"], "2026-10-31");

  // A directory of campaign files (a mounted ConfigMap): a night of each, the worst code.
  fs::create_directories(dir_ + "/campaigns");
  WriteFile(dir_ + "/campaigns/one.yaml",
            "campaign: one\nbuilds: {fuzz: " + build + "}\nbudget: 3s\n");
  WriteFile(dir_ + "/campaigns/two.yaml",
            "campaign: two\nbuilds: {fuzz: " + build + "}\nbudget: 3s\n");
  WriteFile(dir_ + "/campaigns/notes.txt", "not a campaign");
  CommandResult both = RunCommand(
      {PollenBin(), "nightly", "--campaign=" + dir_ + "/campaigns", "--controller=" + endpoint_,
       "--insecure-plaintext", "--state=" + state_, "--night=2026-11-01"},
      kNightDeadlineS);
  EXPECT_EQ(both.exit_code, 3) << both.output;
  EXPECT_TRUE(fs::exists(NightDir("one", "2026-11-01") + "/report.json")) << both.output;
  EXPECT_TRUE(fs::exists(NightDir("two", "2026-11-01") + "/report.json")) << both.output;
}

TEST_F(NightlyTest, BadCampaignFilesAreRefusedNamingTheLineAndTheField) {
  const std::string file = dir_ + "/bad.yaml";
  WriteFile(file, "campaign: bad\nbuilds: {fuzz: " + Build(1) + "}\nbudget: soon\n");
  CommandResult r = RunNight(file, "2026-11-01", 1);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("bad.yaml:3: budget: 'soon' is not a duration"));

  WriteFile(file, "campaign: bad\nbuilds: {fuzz: " + Build(1) + "}\nbudget: 5s\nnode: 3\n");
  r = RunNight(file, "2026-11-01", 1);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("bad.yaml:4: node: unknown field"));

  const std::string good = CampaignFile("good", "5s");
  std::vector<std::string> argv = Nightly(good, "yesterday", 1);
  r = RunCommand(argv, 30);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("'yesterday' is not a night"));
}

// pollen coverage's totals are llvm-cov's own, and a crashing input loses no coverage.
TEST(CoverageCommandTest, TotalsAreLlvmCovsAndACrashLosesNothing) {
  const std::string dir = MakeTempDir();
  fs::create_directories(dir + "/in");
  WriteFile(dir + "/in/get", "get");
  WriteFile(dir + "/in/put", "put 123456");
  WriteFile(dir + "/in/crash", "A!");  // bug A of build 1
  CommandResult r = RunCommand(
      {PollenBin(), "coverage", CoverageBuild(1), dir + "/in", "--out=" + dir + "/out"}, 120);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(dir + "/out/html/index.html"));
  nlohmann::json summary = ReadJson(dir + "/out/summary.json");
  ASSERT_TRUE(summary.is_object()) << ReadFile(dir + "/out/summary.json");

  CommandResult report = RunCommand({"/usr/bin/llvm-cov-14", "report", CoverageBuild(1),
                                     "-instr-profile=" + dir + "/out/coverage.profdata"},
                                    60);
  ASSERT_EQ(report.exit_code, 0) << report.output;
  // TOTAL regions missed cover functions missed executed lines missed cover branches missed cover
  std::smatch m;
  const std::regex total(
      R"(TOTAL\s+(\d+)\s+(\d+)\s+\S+\s+(\d+)\s+(\d+)\s+\S+\s+(\d+)\s+(\d+)\s+\S+\s+(\d+)\s+(\d+))");
  ASSERT_TRUE(std::regex_search(report.output, m, total)) << report.output;
  auto check = [&](const char* name, int count_group) {
    const uint64_t count = std::stoull(m[count_group]);
    const uint64_t missed = std::stoull(m[count_group + 1]);
    EXPECT_EQ(summary["totals"][name]["count"].get<uint64_t>(), count) << name;
    EXPECT_EQ(summary["totals"][name]["covered"].get<uint64_t>(), count - missed) << name;
  };
  check("regions", 1);
  check("functions", 3);
  check("lines", 5);
  check("branches", 7);
  // The crashing input ran to its crash: BugA's branches were taken.
  EXPECT_EQ(summary["totals"]["functions"]["covered"], summary["totals"]["functions"]["count"]);
  EXPECT_THAT(r.output, HasSubstr("lines "));
  std::error_code ec;
  fs::remove_all(dir, ec);
}

TEST(CoverageCommandTest, ABuildWithoutCoverageIsRefusedSayingSo) {
  const std::string dir = MakeTempDir();
  fs::create_directories(dir + "/in");
  WriteFile(dir + "/in/get", "get");
  CommandResult r =
      RunCommand({PollenBin(), "coverage", Build(1), dir + "/in", "--out=" + dir + "/out"}, 120);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("wrote no profile"));
  EXPECT_THAT(r.output, HasSubstr("-fprofile-instr-generate -fcoverage-mapping"));
  std::error_code ec;
  fs::remove_all(dir, ec);
}

}  // namespace
}  // namespace pollen::testing
