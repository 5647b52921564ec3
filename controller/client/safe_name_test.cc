#include "controller/client/safe_name.h"

#include <gtest/gtest.h>

#include <string>

namespace pollen::controller {
namespace {

TEST(SafeNameTest, AcceptsNamesThatAreSafeDirectoryNames) {
  for (const char* name : {"json", "re2_fuzzer", "libpng-1.6", "A", "0123456789abcdef", "a..b"}) {
    EXPECT_TRUE(CheckSafeName("campaign name", name).ok()) << name;
  }
  EXPECT_TRUE(CheckSafeName("campaign name", std::string(kMaxSafeNameBytes, 'x')).ok());
}

TEST(SafeNameTest, RefusesNamesThatCouldLeaveOrHideInTheDirectory) {
  for (const char* name : {"", ".", "..", "../etc", "a/b", "/abs", ".hidden", "-flag", "_x",
                           "sp ace", "tab\there", "nul\x01", "caf\xc3\xa9", "a\\b"}) {
    Status s = CheckSafeName("campaign name", name);
    EXPECT_FALSE(s.ok()) << name;
    EXPECT_NE(s.message().find("campaign name"), std::string::npos) << s.message();
  }
  EXPECT_FALSE(CheckSafeName("build id", std::string(kMaxSafeNameBytes + 1, 'x')).ok());
  // A NUL inside the name.
  EXPECT_FALSE(CheckSafeName("build id", std::string("ab\0cd", 5)).ok());
}

TEST(SafeNameTest, ErrorsShowControlCharactersEscaped) {
  Status s = CheckSafeName("campaign name", "bad\x1b[31m");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("\\x1b"), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find('\x1b'), std::string::npos);
}

TEST(SafeNameTest, NodeIdsArePrintableWithoutSpaces) {
  EXPECT_TRUE(CheckNodeId("host-1234-abcd", 256).ok());
  EXPECT_TRUE(CheckNodeId("node/with:punct@", 256).ok());
  EXPECT_FALSE(CheckNodeId("", 256).ok());
  EXPECT_FALSE(CheckNodeId("two words", 256).ok());
  EXPECT_FALSE(CheckNodeId("line\nbreak", 256).ok());
  EXPECT_FALSE(CheckNodeId(std::string(257, 'n'), 256).ok());
}

TEST(SafeNameTest, DisplayTextHasNoControlCharacters) {
  EXPECT_TRUE(IsDisplayText("host name.example (eu) caf\xc3\xa9"));
  EXPECT_FALSE(IsDisplayText("a\nb"));
  EXPECT_FALSE(IsDisplayText("a\x7f"));
}

}  // namespace
}  // namespace pollen::controller
