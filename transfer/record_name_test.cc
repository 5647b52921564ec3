#include "transfer/record_name.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace pollen::transfer {
namespace {

using namespace std::string_literals;  // NOLINT: "\0" literals

TEST(TransferRecordNameTest, AcceptsNamesAndRelativePaths) {
  const std::vector<std::string> names = {"a",
                                          "0123456789abcdef0123456789abcdef01234567",
                                          "crashes/crash-1",
                                          "a/b/c",
                                          "..a",
                                          "a..",
                                          "a/.../b",
                                          ".hidden",
                                          "a/./b",
                                          "a//b",
                                          "trailing/",
                                          std::string(255, 'x')};
  for (const std::string& name : names) {
    EXPECT_TRUE(ValidateRecordName(name).ok())
        << name << ": " << ValidateRecordName(name).message();
  }
}

TEST(TransferRecordNameTest, RejectsEachBrokenRuleWithItsReason) {
  const struct {
    std::string name;
    const char* reason;
  } cases[] = {
      {"", "empty"},
      {"/etc/passwd", "absolute path"},
      {"/", "absolute path"},
      {"..", "\"..\" component"},
      {"../x", "\"..\" component"},
      {"a/..", "\"..\" component"},
      {"a/../b", "\"..\" component"},
      {"a\0b"s, "NUL"},
      {std::string(256, 'x'), "256 bytes, more than the limit of 255"},
  };
  for (const auto& c : cases) {
    Status s = ValidateRecordName(c.name);
    EXPECT_FALSE(s.ok()) << PrintableName(c.name);
    EXPECT_NE(s.message().find(c.reason), std::string::npos) << s.message();
  }
}

TEST(TransferRecordNameTest, TheLengthLimitIsAParameter) {
  EXPECT_TRUE(ValidateRecordName("abcd", 4).ok());
  EXPECT_FALSE(ValidateRecordName("abcde", 4).ok());
}

TEST(TransferRecordNameTest, PrintableNameEscapesAndCuts) {
  EXPECT_EQ(PrintableName("a\0\"\\\n\xff"s), "\"a\\x00\\x22\\x5c\\x0a\\xff\"");
  EXPECT_EQ(PrintableName(std::string(70, 'y')), "\"" + std::string(64, 'y') + "\"...");
}

}  // namespace
}  // namespace pollen::transfer
