#include "engine/embedded_dictionary.h"

#include <elf.h>

#include <cstring>
#include <string>
#include <vector>

#include "engine/elf_section.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pollen::engine {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A minimal ELF file: the header, then section data, then the names, then three section
// headers (null, the names, `name` holding `data`).
std::vector<uint8_t> MakeElf(const std::string& name, const std::vector<uint8_t>& data) {
  std::string names = std::string("\0.shstrtab\0", 11) + name + '\0';
  std::vector<uint8_t> file(sizeof(Elf64_Ehdr));
  const uint64_t data_offset = file.size();
  file.insert(file.end(), data.begin(), data.end());
  const uint64_t names_offset = file.size();
  file.insert(file.end(), names.begin(), names.end());
  const uint64_t headers_offset = file.size();
  Elf64_Shdr sh[3] = {};
  sh[1].sh_name = 1;
  sh[1].sh_type = SHT_STRTAB;
  sh[1].sh_offset = names_offset;
  sh[1].sh_size = names.size();
  sh[2].sh_name = 11;
  sh[2].sh_type = SHT_PROGBITS;
  sh[2].sh_offset = data_offset;
  sh[2].sh_size = data.size();
  const auto* raw = reinterpret_cast<const uint8_t*>(sh);
  file.insert(file.end(), raw, raw + sizeof sh);
  Elf64_Ehdr eh = {};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_shoff = headers_offset;
  eh.e_shentsize = sizeof(Elf64_Shdr);
  eh.e_shnum = 3;
  eh.e_shstrndx = 1;
  std::memcpy(file.data(), &eh, sizeof eh);
  return file;
}

ReadAt FromMemory(const std::vector<uint8_t>& file) {
  return [&file](uint64_t offset, void* out, size_t size) {
    if (offset > file.size() || file.size() - offset < size) return false;
    std::memcpy(out, file.data() + offset, size);
    return true;
  };
}

TEST(ElfSectionTest, FindsASectionByItsName) {
  std::vector<uint8_t> file = MakeElf("pollen_dict", {3, 'a', 'b', 'c'});
  auto found = ReadElfSection(FromMemory(file), "pollen_dict", 1 << 20);
  ASSERT_TRUE(found.ok()) << found.status().message();
  ASSERT_TRUE(found.value().has_value());
  EXPECT_THAT(*found.value(), ElementsAre(3, 'a', 'b', 'c'));
  // A prefix or an extension of the name is another section.
  for (const char* other : {"pollen_dic", "pollen_dictx", ".text"}) {
    auto missing = ReadElfSection(FromMemory(file), other, 1 << 20);
    ASSERT_TRUE(missing.ok()) << other;
    EXPECT_FALSE(missing.value().has_value()) << other;
  }
}

TEST(ElfSectionTest, ReadsItsOwnBinary) {
  auto text = ReadElfSectionFile("/proc/self/exe", ".text", 1u << 30);
  ASSERT_TRUE(text.ok()) << text.status().message();
  ASSERT_TRUE(text.value().has_value());
  EXPECT_GT(text.value()->size(), 1000u);
  auto dict = ReadEmbeddedDictionary("/proc/self/exe");  // built without the pass
  ASSERT_TRUE(dict.ok()) << dict.status().message();
  EXPECT_TRUE(dict.value().entries.empty());
}

TEST(ElfSectionTest, BrokenFilesAreErrorsNeverCrashes) {
  const std::vector<uint8_t> good = MakeElf("pollen_dict", {2, 'h', 'i'});
  EXPECT_THAT(
      ReadElfSection(FromMemory(std::vector<uint8_t>{'#', '!'}), "x", 100).status().message(),
      HasSubstr("not an ELF file"));
  // Every truncation: an error or "no such section", and no read outside the bytes.
  for (size_t n = 0; n < good.size(); n++) {
    std::vector<uint8_t> cut(good.begin(), good.begin() + static_cast<ptrdiff_t>(n));
    auto r = ReadElfSection(FromMemory(cut), "pollen_dict", 100);
    EXPECT_TRUE(!r.ok() || !r.value().has_value()) << n;
  }
  // Every byte flipped: whatever the answer, no crash, and a section never larger than asked.
  for (size_t i = 0; i < good.size(); i++) {
    std::vector<uint8_t> bad = good;
    bad[i] ^= 0xff;
    auto r = ReadElfSection(FromMemory(bad), "pollen_dict", 100);
    if (r.ok() && r.value().has_value()) EXPECT_LE(r.value()->size(), 100u);
  }
  EXPECT_THAT(ReadElfSection(FromMemory(good), "pollen_dict", 2).status().message(),
              HasSubstr("larger than 2 bytes"));
  EXPECT_THAT(ReadElfSectionFile("/nonexistent/x", "a", 1).status().message(),
              HasSubstr("cannot read '/nonexistent/x'"));
}

TEST(EmbeddedDictionaryTest, DecodesRecordsSkipsPaddingAndDuplicates) {
  auto dict =
      ParseEmbeddedDictionary({4, 'H', 'E', 'L', 'O', 0, 0, 2, 0xff, 0xfe, 4, 'H', 'E', 'L', 'O'});
  ASSERT_TRUE(dict.ok()) << dict.status().message();
  EXPECT_THAT(dict.value().entries, ElementsAre("HELO", "\xff\xfe"));
}

TEST(EmbeddedDictionaryTest, BrokenRecordsAreErrors) {
  EXPECT_THAT(ParseEmbeddedDictionary({5, 'a', 'b'}).status().message(), HasSubstr("runs past"));
  std::vector<uint8_t> too_long(200, 'x');
  too_long[0] = 200;
  EXPECT_THAT(ParseEmbeddedDictionary(too_long).status().message(), HasSubstr("at most 128"));
}

TEST(EmbeddedDictionaryTest, MergeAddsOnlyNewEntries) {
  Dictionary dict;
  dict.entries = {"a", "b"};
  Dictionary more;
  more.entries = {"b", "c", "c"};
  EXPECT_EQ(MergeDictionary(more, &dict), 1u);
  EXPECT_THAT(dict.entries, ElementsAre("a", "b", "c"));
}

}  // namespace
}  // namespace pollen::engine
