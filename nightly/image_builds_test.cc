// Builds copied out of an image, with a stand-in for podman (a script that serves files of a
// directory as the image's and logs its calls): the campaign's paths are rewritten to the
// copies, the container is removed, and a path the image lacks or a missing podman is an
// error naming it. The real podman is exercised by tests/image/image_test.sh.
#include "nightly/image_builds.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "tests/test_util.h"

namespace pollen::nightly {
namespace {

namespace fs = std::filesystem;
using ::pollen::testing::MakeTempDir;
using ::pollen::testing::ReadFile;
using ::pollen::testing::WriteFile;

class ImageBuildsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir();
    fs::create_directories(dir_ + "/image/target");
    WriteFile(dir_ + "/image/target/fuzzer", "fuzz build");
    WriteFile(dir_ + "/image/target/fuzzer-ubsan", "ubsan build");
    podman_ = dir_ + "/podman";
    WriteFile(podman_,
              "#!/bin/sh\n"
              "echo \"$*\" >> " +
                  dir_ +
                  "/calls\n"
                  "case \"$1\" in\n"
                  "  create) [ \"$3\" = registry.example/json:1 ] || { echo \"Error: $3: not "
                  "found\"; exit 125; }\n"
                  "          echo 'Trying to pull registry.example/json:1...'; echo c0ffee ;;\n"
                  "  cp) src=${2#c0ffee:}; [ -f \"" +
                  dir_ +
                  "/image$src\" ] ||"
                  " { echo \"Error: $src: no such file or directory\"; exit 125; }\n"
                  "      cp \"" +
                  dir_ +
                  "/image$src\" \"$3\" ;;\n"
                  "  rm) [ \"$2\" = c0ffee ] ;;\n"
                  "esac\n");
    chmod(podman_.c_str(), 0755);
  }
  void TearDown() override { fs::remove_all(dir_); }

  NightlyCampaign Campaign(const std::string& image = "registry.example/json:1") {
    NightlyCampaign c;
    c.campaign = "json";
    c.image = image;
    c.fuzz_build = "/target/fuzzer";
    c.sanitizer_builds = {{"ubsan", "/target/fuzzer-ubsan"}};
    return c;
  }

  std::string dir_;
  std::string podman_;
};

TEST_F(ImageBuildsTest, TheBuildsAreCopiedOutAndTheCampaignPointsAtThem) {
  NightlyCampaign c = Campaign();
  Status st = ExtractImageBuilds(&c, dir_ + "/out", podman_);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(c.fuzz_build, dir_ + "/out/fuzz/fuzzer");
  EXPECT_EQ(ReadFile(c.fuzz_build), "fuzz build");
  EXPECT_EQ(c.sanitizer_builds[0].second, dir_ + "/out/sanitizer-ubsan/fuzzer-ubsan");
  EXPECT_EQ(ReadFile(c.sanitizer_builds[0].second), "ubsan build");
  EXPECT_EQ(fs::status(c.fuzz_build).permissions() & fs::perms::owner_exec, fs::perms::owner_exec);
  EXPECT_EQ(ReadFile(dir_ + "/calls"),
            "create --quiet registry.example/json:1\n"
            "cp c0ffee:/target/fuzzer " +
                dir_ +
                "/out/fuzz/fuzzer\n"
                "cp c0ffee:/target/fuzzer-ubsan " +
                dir_ +
                "/out/sanitizer-ubsan/fuzzer-ubsan\n"
                "rm c0ffee\n");
}

TEST_F(ImageBuildsTest, APathTheImageLacksAnUnknownImageAndNoPodmanAreErrors) {
  NightlyCampaign lacking = Campaign();
  lacking.coverage_build = "/target/fuzzer-cov";
  Status st = ExtractImageBuilds(&lacking, dir_ + "/out", podman_);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(
      st.message().find("builds.coverage: /target/fuzzer-cov of image registry.example/json:1"),
      std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("no such file"), std::string::npos) << st.message();
  EXPECT_NE(ReadFile(dir_ + "/calls").find("rm c0ffee"), std::string::npos) << "the container goes";

  NightlyCampaign unknown = Campaign("registry.example/other:2");
  st = ExtractImageBuilds(&unknown, dir_ + "/out", podman_);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("registry.example/other:2: not found"), std::string::npos)
      << st.message();
  EXPECT_EQ(unknown.fuzz_build, "/target/fuzzer");

  NightlyCampaign c = Campaign();
  st = ExtractImageBuilds(&c, dir_ + "/out", dir_ + "/no-podman-here");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("builds from images need podman"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace pollen::nightly
