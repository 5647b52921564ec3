#include "nightly/campaign_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace pollen::nightly {
namespace {

using ::testing::HasSubstr;

TEST(CampaignFileTest, AWholeFileIsReadWithPathsRelativeToIt) {
  Result<NightlyCampaign> c = ParseCampaignFile(
      "campaign: json\n"
      "target: json_fuzzer\n"
      "builds:\n"
      "  fuzz: out/fuzzer\n"
      "  coverage: /abs/fuzzer-cov\n"
      "seeds: [seeds, ../more]\n"
      "dictionary: fuzz.dict\n"
      "options: {max_len: 4096, timeout: 5, rss_limit_mb: 0}\n"
      "budget: 1h30m\n"
      "nodes: 3\n"
      "workers: 0\n"
      "notify: {webhook: 'https://hooks.example.com/x?y=1', timeout: 5, attempts: 2}\n",
      "/etc/pollen/json.yaml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->campaign, "json");
  EXPECT_EQ(TargetName(*c), "json_fuzzer");
  EXPECT_EQ(c->fuzz_build, "/etc/pollen/out/fuzzer");
  EXPECT_EQ(c->coverage_build, "/abs/fuzzer-cov");
  EXPECT_THAT(c->seeds, ::testing::ElementsAre("/etc/pollen/seeds", "/etc/more"));
  EXPECT_EQ(c->dictionary, "/etc/pollen/fuzz.dict");
  EXPECT_EQ(c->max_len, 4096u);
  EXPECT_EQ(c->timeout_s, 5u);
  EXPECT_EQ(c->rss_limit_mb, 0u);
  EXPECT_EQ(c->budget_s, 5400u);
  EXPECT_EQ(c->nodes, 3u);
  EXPECT_EQ(c->workers, 0u);
  EXPECT_EQ(c->webhook, "https://hooks.example.com/x?y=1");
  EXPECT_EQ(c->webhook_timeout_s, 5u);
  EXPECT_EQ(c->webhook_attempts, 2u);
}

TEST(CampaignFileTest, DefaultsFillWhatIsLeftOut) {
  Result<NightlyCampaign> c =
      ParseCampaignFile("campaign: png\nbuilds: {fuzz: f}\nbudget: 600\n", "c.yaml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->fuzz_build, "f");
  EXPECT_EQ(TargetName(*c), "f");
  EXPECT_TRUE(c->coverage_build.empty());
  EXPECT_EQ(c->budget_s, 600u);
  EXPECT_EQ(c->nodes, 1u);
  EXPECT_EQ(c->workers, 1u);
  EXPECT_EQ(c->timeout_s, 10u);
  EXPECT_EQ(c->rss_limit_mb, 2048u);
  EXPECT_EQ(c->max_len, 0u);
}

TEST(CampaignFileTest, NodesClusterMeansTheNodesFollowingTheCampaignsBuilds) {
  Result<NightlyCampaign> c =
      ParseCampaignFile("campaign: png\nbuilds: {fuzz: f}\nbudget: 1m\nnodes: cluster\n", "c.yaml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_TRUE(c->cluster);
  Result<NightlyCampaign> local =
      ParseCampaignFile("campaign: png\nbuilds: {fuzz: f}\nbudget: 1m\nnodes: 2\n", "c.yaml");
  ASSERT_TRUE(local.ok());
  EXPECT_FALSE(local->cluster);
  Result<NightlyCampaign> bad = ParseCampaignFile(
      "campaign: png\nbuilds: {fuzz: f}\nbudget: 1m\nnodes: clusters\n", "c.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("or `cluster`"), std::string::npos)
      << bad.status().message();
}

TEST(CampaignFileTest, SanitizerBuildsAreNamedPathsRelativeToTheFile) {
  Result<NightlyCampaign> c = ParseCampaignFile(
      "campaign: png\nbuilds:\n  fuzz: f\n  sanitizers: {ubsan: u, msan: /abs/m}\nbudget: 1m\n",
      "dir/c.yaml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->sanitizer_builds.size(), 2u);
  EXPECT_EQ(c->sanitizer_builds[0], (std::pair<std::string, std::string>{"ubsan", "dir/u"}));
  EXPECT_EQ(c->sanitizer_builds[1], (std::pair<std::string, std::string>{"msan", "/abs/m"}));
  for (const char* bad : {"{UBSan: u}", "{ub-san: u}", "[u]", "{}", "{ubsan: ''}"}) {
    Result<NightlyCampaign> refused = ParseCampaignFile(
        std::string("campaign: png\nbuilds:\n  fuzz: f\n  sanitizers: ") + bad + "\nbudget: 1m\n",
        "c.yaml");
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_NE(refused.status().message().find("c.yaml:4: builds.sanitizers"), std::string::npos)
        << bad << ": " << refused.status().message();
  }
}

TEST(CampaignFileTest, WithAnImageTheBuildsArePathsInsideIt) {
  Result<NightlyCampaign> c = ParseCampaignFile(
      "campaign: png\nbuilds:\n  image: reg.example/png:1\n  fuzz: /target/fuzzer\n"
      "  coverage: /target/fuzzer-cov\nbudget: 1m\n",
      "dir/c.yaml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->image, "reg.example/png:1");
  EXPECT_EQ(c->fuzz_build, "/target/fuzzer");  // not resolved against dir/
  EXPECT_EQ(c->coverage_build, "/target/fuzzer-cov");
  Result<NightlyCampaign> relative = ParseCampaignFile(
      "campaign: png\nbuilds:\n  image: reg.example/png:1\n  fuzz: target/fuzzer\nbudget: 1m\n",
      "c.yaml");
  ASSERT_FALSE(relative.ok());
  EXPECT_NE(relative.status().message().find("c.yaml:4: builds.fuzz: a path inside builds.image"),
            std::string::npos)
      << relative.status().message();
  Result<NightlyCampaign> bad_ref = ParseCampaignFile(
      "campaign: png\nbuilds:\n  image: '--rm'\n  fuzz: /f\nbudget: 1m\n", "c.yaml");
  ASSERT_FALSE(bad_ref.ok());
  EXPECT_NE(bad_ref.status().message().find("builds.image"), std::string::npos);
}

// Each bad file gets an error that names the file, the line and the field.
TEST(CampaignFileTest, BadFilesGetErrorsNamingTheLineAndTheField) {
  struct Case {
    const char* text;
    const char* expected;
  } cases[] = {
      {"builds: {fuzz: f}\nbudget: 1m\n", "c.yaml:1: campaign: is required"},
      {"campaign: ../x\nbuilds: {fuzz: f}\nbudget: 1m\n", "c.yaml:1: campaign: campaign name"},
      {"campaign: a\nbudget: 1m\n", "builds: is required"},
      {"campaign: a\ntarget: a/b\nbuilds: {fuzz: f}\nbudget: 1m\n",
       "c.yaml:2: target: target name"},
      {"campaign: a\nbuilds: {coverage: c}\nbudget: 1m\n", "builds.fuzz: is required"},
      {"campaign: a\nbuilds: {fuzz: f}\n", "budget: is required"},
      {"campaign: a\nbuilds: {fuzz: f}\nbudget: 1x\n", "c.yaml:3: budget: '1x' is not a duration"},
      {"campaign: a\nbuilds: {fuzz: f}\nbudget: 0s\n",
       "budget: '0s': the budget must be at least 1 s"},
      {"campaign: a\nbuilds: {fuzz: f}\nbudget: 9000h\n", "longer than a week"},
      {"campaign: a\nbuilds: {fuzz: f}\nbudget: 1m\nbudjet: 2m\n",
       "c.yaml:4: budjet: unknown field (known here: campaign, target, builds"},
      {"campaign: a\nbuilds: {fuzz: f, asan: g}\nbudget: 1m\n", "builds.asan: unknown field"},
      {"campaign: a\nbuilds: {fuzz: f}\nbudget: 1m\nnodes: 0\n",
       "c.yaml:4: nodes: 0 is out of range [1, 256]"},
      {"campaign: a\nbuilds: {fuzz: f}\nbudget: 1m\nnodes: two\n",
       "nodes: 'two' is not a whole number"},
      {"campaign: a\nbuilds: {fuzz: f}\nbudget: 1m\nnodes: -1\n",
       "nodes: '-1' is not a whole number"},
      {"campaign: a\nbuilds: {fuzz: f}\nbudget: 1m\noptions: {timeout: 0}\n",
       "options.timeout: 0 is out of range"},
      {"campaign: a\nbuilds: {fuzz: f}\nbudget: 1m\noptions: {max_lne: 3}\n",
       "options.max_lne: unknown field"},
      {"campaign: a\nbuilds: {fuzz: [f]}\nbudget: 1m\n", "builds.fuzz: must be a single value"},
      {"campaign: a\nbuilds: {fuzz: ''}\nbudget: 1m\n", "builds.fuzz: is empty"},
      {"campaign: a\nbuilds: f\nbudget: 1m\n", "builds: must be a map"},
      {"campaign: a\nbuilds: {fuzz: f}\nbudget: 1m\nseeds: {a: b}\n", "seeds: must be a directory"},
      {"campaign: a\nbuilds: {fuzz: f}\nbudget: 1m\nnotify: {webhook: ftp://x}\n",
       "c.yaml:4: notify.webhook: webhook 'ftp://x': only http and https"},
      {"campaign: a\nbuilds: {fuzz: f}\nbudget: 1m\nnotify: {timeout: 3}\n",
       "notify.webhook: is required"},
      {"campaign: a\nbuilds: {fuzz: f}\nbudget: 1m\nnotify: {webhook: 'http://'}\n", "has no host"},
      {"- just\n- a list\n", "c.yaml: a campaign file is a YAML map"},
      {"campaign: [unclosed\n", "c.yaml:2: not valid YAML"},
      {"", "c.yaml: a campaign file is a YAML map"},
  };
  for (const Case& c : cases) {
    Result<NightlyCampaign> parsed = ParseCampaignFile(c.text, "c.yaml");
    ASSERT_FALSE(parsed.ok()) << c.text;
    EXPECT_THAT(parsed.status().message(), HasSubstr(c.expected)) << c.text;
  }
}

TEST(CampaignFileTest, DurationsTakeUnitsOrSeconds) {
  EXPECT_EQ(ParseDuration("90s").value(), 90u);
  EXPECT_EQ(ParseDuration("30m").value(), 1800u);
  EXPECT_EQ(ParseDuration("2h").value(), 7200u);
  EXPECT_EQ(ParseDuration("1h30m15s").value(), 5415u);
  EXPECT_EQ(ParseDuration("600").value(), 600u);
  for (const char* bad : {"", "m", "1h30", "1d", "-5", "1.5h", "18446744073709551616"}) {
    EXPECT_FALSE(ParseDuration(bad).ok()) << bad;
  }
}

TEST(CampaignFileTest, AMissingFileIsAnError) {
  Result<NightlyCampaign> c = LoadCampaignFile("/nonexistent/campaign.yaml");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(),
              HasSubstr("cannot read campaign file /nonexistent/campaign.yaml"));
}

}  // namespace
}  // namespace pollen::nightly
