#include "engine/routine_operands.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <string>

namespace pollen::engine {
namespace {

size_t Token(const std::string& other, const std::string& text) {
  return TokenLength(reinterpret_cast<const uint8_t*>(other.data()), other.size(),
                     reinterpret_cast<const uint8_t*>(text.data()), text.size());
}

size_t Text(const std::string& bytes) {
  return TextLength(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

TEST(CopyMappedTest, StopsAtTheFirstUnmappedPage) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  auto* two = static_cast<uint8_t*>(
      mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(two, MAP_FAILED);
  ASSERT_EQ(munmap(two + page, page), 0);
  std::memcpy(two + page - 5, "abcde", 5);
  uint8_t out[32] = {};
  // Five bytes before the hole: those five, no fault.
  EXPECT_EQ(CopyMapped(two + page - 5, sizeof(out), out), 5u);
  EXPECT_EQ(std::memcmp(out, "abcde", 5), 0);
  // Inside the hole, and in the null page: nothing.
  EXPECT_EQ(CopyMapped(two + page, sizeof(out), out), 0u);
  EXPECT_EQ(CopyMapped(reinterpret_cast<void*>(16), sizeof(out), out), 0u);
  EXPECT_EQ(CopyMapped(nullptr, sizeof(out), out), 0u);
  // A mapped stretch across no boundary: all of it.
  EXPECT_EQ(CopyMapped(two + 100, sizeof(out), out), sizeof(out));
  munmap(two, page);
}

TEST(TextLengthTest, OnlyShortPrintableTextWithItsNul) {
  EXPECT_EQ(Text(std::string("select\0zz", 9)), 6u);
  EXPECT_EQ(Text(std::string("a b\tc\n\0", 7)), 6u);
  EXPECT_EQ(Text(std::string("x\0", 2)), 0u);        // one character: trace-cmp's job
  EXPECT_EQ(Text(std::string("\x89PNG\0", 5)), 0u);  // not text
  EXPECT_EQ(Text("no terminator in reach"), 0u);     // no NUL within the bytes read
  EXPECT_EQ(Text(std::string("\0abc", 4)), 0u);
}

TEST(TokenLengthTest, TheWordAtTheOtherPointerForAWordLiteral) {
  EXPECT_EQ(Token("x from t", "select"), 1u);  // the token "x", not six bytes of the line
  EXPECT_EQ(Token("SeLeCt_2 x", "select"), 8u);
  EXPECT_EQ(Token(" from", "from"), 1u);           // no word at all: at least one byte
  EXPECT_EQ(Token("<?xml version", "<?xml"), 5u);  // a literal of punctuation: its own length
  EXPECT_EQ(Token("<?", "<?xml"), 2u);             // but no more than could be read
  EXPECT_EQ(Token("", "select"), 0u);
}

}  // namespace
}  // namespace pollen::engine
