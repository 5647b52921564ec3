// The developer-host commands (list, status, start, stop, crashes, repro --campaign) run
// in-process against an in-process controller, with what two nodes reported sent by a
// client as `pollen node` would.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/sha1.h"
#include "cli/commands.h"
#include "cli/target_setup.h"
#include "controller/controller_test_util.h"
#include "tests/test_util.h"

namespace pollen::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
namespace ctl = ::pollen::controller;

struct Outcome {
  int code;
  std::string out;
  std::string err;
};

// Runs a command's function with `args` (after the command's name), capturing its output.
Outcome Invoke(int (*command)(int, char**), std::vector<std::string> args) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  int code = command(static_cast<int>(args.size()), argv.data());
  std::fflush(stdout);
  Outcome run{code, ::testing::internal::GetCapturedStdout(),
              ::testing::internal::GetCapturedStderr()};
  return run;
}

class ControllerCommandsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ctl::ControllerOptions options;
    options.listen = "tcp://127.0.0.1:*";
    options.data_dir = data_.path() + "/data";
    options.allow_plaintext = true;
    auto started = ctl::StartController(options);
    ASSERT_TRUE(started.ok()) << started.status().message();
    controller_ = std::make_unique<ctl::testing::RunningController>(std::move(started.value()));
    endpoint_ = (*controller_)->endpoint();
    ctl::ControllerClientOptions client_options;
    client_options.controller = endpoint_;
    auto client = ctl::ConnectController(client_options);
    ASSERT_TRUE(client.ok()) << client.status().message();
    node_ = std::move(client.value());
    target_ = ::pollen::testing::Example("shallow_crash");
    build_id_ = node::BuildIdOf(target_).value();
  }

  // `pollen node` registering and reporting the planted crash ("HI!") of shallow_crash.
  void ReportCrash(const std::string& node_id, const std::string& input) {
    ctl::RegisterRequest reg{node_id, "shallow", "shallow_crash_fuzzer", build_id_, "", "host", 1};
    ASSERT_TRUE(node_->Call<ctl::RegisterReply>(reg, 5000).ok());
    ctl::CrashRequest crash{node_id,
                            kSignature,
                            "SEGV",
                            {input.begin(), input.end()},
                            "==1==ERROR: SEGV on unknown address",
                            false};
    auto reply = node_->Call<ctl::CrashReply>(crash, 5000);
    ASSERT_TRUE(reply.ok()) << reply.status().message();
  }

  std::vector<std::string> Flags() { return {"--controller=" + endpoint_, "--insecure-plaintext"}; }
  std::vector<std::string> With(std::vector<std::string> args) {
    for (std::string& f : Flags()) args.push_back(f);
    return args;
  }

  static constexpr char kSignature[] = "5eed5eed0badc0de";
  ctl::testing::TempDir data_;
  std::unique_ptr<ctl::testing::RunningController> controller_;
  std::string endpoint_;
  std::unique_ptr<ctl::ControllerClient> node_;
  std::string target_;
  std::string build_id_;
};

TEST_F(ControllerCommandsTest, ListAndStatusShowTheCampaignAndItsNodes) {
  ReportCrash("node-a", "HI!");
  Outcome list = Invoke(ListCommand, With({}));
  ASSERT_EQ(list.code, 0) << list.err;
  EXPECT_THAT(list.out, HasSubstr("shallow"));
  EXPECT_THAT(list.out, HasSubstr("shallow_crash_fuzzer"));
  EXPECT_THAT(list.out, HasSubstr("running"));

  Outcome status = Invoke(StatusCommand, With({"--once"}));
  ASSERT_EQ(status.code, 0) << status.err;
  EXPECT_THAT(status.out, HasSubstr("node-a"));
  EXPECT_THAT(status.out, HasSubstr("alive"));
}

// --json: one document a tool can read, with what the tables show.
TEST_F(ControllerCommandsTest, ListStatusAndCrashesPrintJsonForTools) {
  ReportCrash("node-a", "HI!");
  ReportCrash("node-b", "HI!");
  Outcome list = Invoke(ListCommand, With({"--json"}));
  ASSERT_EQ(list.code, 0) << list.err;
  nlohmann::json campaigns = nlohmann::json::parse(list.out, nullptr, false);
  ASSERT_TRUE(campaigns.is_object()) << list.out;
  ASSERT_EQ(campaigns["campaigns"].size(), 1u);
  EXPECT_EQ(campaigns["campaigns"][0]["name"], "shallow");
  EXPECT_EQ(campaigns["campaigns"][0]["target"], "shallow_crash_fuzzer");
  EXPECT_EQ(campaigns["campaigns"][0]["build_id"], build_id_);
  EXPECT_EQ(campaigns["campaigns"][0]["nodes_alive"], 2);

  Outcome status = Invoke(StatusCommand, With({"--json", "shallow"}));
  ASSERT_EQ(status.code, 0) << status.err;
  nlohmann::json st = nlohmann::json::parse(status.out, nullptr, false);
  ASSERT_TRUE(st.is_object()) << status.out;
  ASSERT_EQ(st["nodes"].size(), 2u);
  EXPECT_EQ(st["nodes"][0]["state"], "alive");
  EXPECT_EQ(st["campaigns"][0]["crashes"], 1);

  Outcome crashes = Invoke(CrashesCommand, With({"list", "shallow", "--json"}));
  ASSERT_EQ(crashes.code, 0) << crashes.err;
  nlohmann::json cr = nlohmann::json::parse(crashes.out, nullptr, false);
  ASSERT_TRUE(cr.is_object()) << crashes.out;
  ASSERT_EQ(cr["crashes"].size(), 1u);
  EXPECT_EQ(cr["crashes"][0]["signature"], kSignature);
  EXPECT_EQ(cr["crashes"][0]["count"], 2);
  EXPECT_EQ(cr["crashes"][0]["nodes"], 2);
  EXPECT_EQ(cr["crashes"][0]["input_size"], 3);
}

TEST_F(ControllerCommandsTest, ACrashFromTwoNodesIsListedOnceWithCountTwoAndPulled) {
  ReportCrash("node-a", "HI!");
  ReportCrash("node-b", "HI!");
  Outcome list = Invoke(CrashesCommand, With({"list", "shallow"}));
  ASSERT_EQ(list.code, 0) << list.err;
  EXPECT_THAT(list.out, HasSubstr(kSignature));
  EXPECT_THAT(list.out, ::testing::ContainsRegex(std::string(kSignature) + " +SEGV +2 +2 +3 "));

  const std::string out = data_.path() + "/pulled";
  Outcome pull = Invoke(CrashesCommand, With({"pull", "shallow", "5eed", "--out=" + out}));
  ASSERT_EQ(pull.code, 0) << pull.err;
  const std::string hex = base::Sha1Hex(reinterpret_cast<const uint8_t*>("HI!"), 3);
  EXPECT_EQ(::pollen::testing::ReadFile(out + "/crash-" + hex), "HI!");
  EXPECT_THAT(::pollen::testing::ReadFile(out + "/crash-" + hex + ".txt"), HasSubstr("SEGV"));
}

// Crashes as regression tests: exported by kind and signature, then run by `pollen repro
// TARGET DIR`, which fails while they still crash.
TEST_F(ControllerCommandsTest, ExportedCrashesAreNamedBySignatureAndReproRunsThem) {
  ReportCrash("node-a", "HI!");
  const std::string dir = data_.path() + "/regressions";
  Outcome exported = Invoke(CrashesCommand, With({"export", "shallow", dir}));
  ASSERT_EQ(exported.code, 0) << exported.err;
  const std::string name = std::string("SEGV-") + kSignature;
  EXPECT_EQ(::pollen::testing::ReadFile(dir + "/" + name), "HI!");
  EXPECT_THAT(::pollen::testing::ReadFile(dir + "/" + name + ".txt"), HasSubstr("SEGV"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/.pollen-export"));
  // Exporting again gives the same file, not a second one.
  ASSERT_EQ(Invoke(CrashesCommand, With({"export", "shallow", dir})).code, 0);
  EXPECT_EQ(::pollen::testing::ListFiles(dir, "SEGV-").size(), 2u);  // the input, its report

  Outcome repro = Invoke(ReproCommand, {target_, dir});
  EXPECT_EQ(repro.code, 1) << repro.out << repro.err;
  EXPECT_THAT(repro.out, HasSubstr(name + ": FAILURE SEGV"));
  Outcome bad = Invoke(CrashesCommand, With({"export", "shallow"}));
  EXPECT_EQ(bad.code, 2);
  EXPECT_THAT(bad.err, HasSubstr("a CAMPAIGN and a DIR"));
}

TEST_F(ControllerCommandsTest, ReproCampaignPullsTheReproducerAndRunsIt) {
  ReportCrash("node-a", "HI!");
  const std::string out = data_.path() + "/repro";
  Outcome repro =
      Invoke(ReproCommand, With({"--campaign=shallow", "--out=" + out, target_, "5eed5"}));
  EXPECT_EQ(repro.code, 1) << repro.out << repro.err;  // a failure reproduced
  EXPECT_THAT(repro.out, HasSubstr("pulled " + out + "/crash-"));
  EXPECT_THAT(repro.out, HasSubstr("FAILURE SEGV"));
  // The test's signature is made up: the real one differs, and the command says so.
  EXPECT_THAT(repro.out, HasSubstr("failed with another signature"));
}

TEST_F(ControllerCommandsTest, StopReachesTheNodesHeartbeatAndStartUndoesIt) {
  ReportCrash("node-a", "HI!");
  Outcome stop = Invoke(StopCommand, With({"shallow"}));
  ASSERT_EQ(stop.code, 0) << stop.err;
  EXPECT_THAT(stop.out, HasSubstr("campaign shallow: stopped"));
  auto beat = node_->Call<ctl::HeartbeatReply>(ctl::HeartbeatRequest{"node-a", {}}, 5000);
  ASSERT_TRUE(beat.ok()) << beat.status().message();
  EXPECT_TRUE(beat->stop);

  Outcome start = Invoke(StartCommand, With({"shallow"}));
  ASSERT_EQ(start.code, 0) << start.err;
  EXPECT_THAT(start.out, HasSubstr("campaign shallow: running"));
  beat = node_->Call<ctl::HeartbeatReply>(ctl::HeartbeatRequest{"node-a", {}}, 5000);
  ASSERT_TRUE(beat.ok());
  EXPECT_FALSE(beat->stop);
}

TEST_F(ControllerCommandsTest, ClearErrorsForUnknownNamesAndAnUnreachableController) {
  ReportCrash("node-a", "HI!");
  Outcome unknown = Invoke(CrashesCommand, With({"list", "nope"}));
  EXPECT_EQ(unknown.code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("no campaign 'nope' (a campaign is created by the first "
                                     "node that joins it or by pollen build push; it has: "
                                     "shallow)"));

  Outcome no_match = Invoke(ReproCommand, With({"--campaign=shallow", target_, "ffff"}));
  EXPECT_EQ(no_match.code, 2);
  EXPECT_THAT(no_match.err, HasSubstr("no crash with signature 'ffff'"));

  Outcome no_controller = Invoke(ListCommand, {"--insecure-plaintext"});
  EXPECT_EQ(no_controller.code, 2);
  EXPECT_THAT(no_controller.err, HasSubstr("no controller given"));

  // A port nobody listens on: the one of a controller that was stopped.
  controller_.reset();
  Outcome gone = Invoke(ListCommand, With({"--timeout=1"}));
  EXPECT_EQ(gone.code, 2);
  EXPECT_THAT(gone.err, HasSubstr("did not answer within 1 s"));
  EXPECT_THAT(gone.out, Not(HasSubstr("CAMPAIGN")));
}

}  // namespace
}  // namespace pollen::cli
