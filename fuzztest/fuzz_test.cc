// The registry of typed fuzz tests, their GoogleTest cases (seeds and corpus files), and the
// libFuzzer entry points a worker calls: LLVMFuzzerTestOneInput runs the test chosen by
// POLLEN_FUZZ on a corpus file's text, LLVMFuzzerCustomMutator mutates one of its arguments.
#include "fuzztest/fuzz_test.h"

#include <dirent.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "fuzztest/registry.h"

namespace pollen::fuzztest {
namespace {

std::map<std::string, FuzzTestBase*>& Tests() {
  static auto* tests = new std::map<std::string, FuzzTestBase*>;
  return *tests;
}

// The regular files of `dir`, sorted; none when it does not exist.
std::vector<std::string> CorpusFiles(const std::string& dir) {
  std::vector<std::string> files;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return files;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    files.push_back(dir + "/" + e->d_name);
  }
  closedir(d);
  std::sort(files.begin(), files.end());
  return files;
}

// Suite.Name as a GoogleTest case: every seed, then every file of the corpus directory.
class CorpusCase : public ::testing::Test {
 public:
  explicit CorpusCase(FuzzTestBase* test) : test_(test) {}
  void TestBody() override {
    std::vector<std::string> seeds = test_->SeedTexts();
    for (size_t i = 0; i < seeds.size(); i++) {
      SCOPED_TRACE("seed " + std::to_string(i + 1));
      std::string error;
      if (!test_->RunText(seeds[i], &error)) ADD_FAILURE() << "seed " << i + 1 << ": " << error;
    }
    for (const std::string& file : CorpusFiles(test_->CorpusDir())) {
      SCOPED_TRACE(file);
      std::ifstream in(file, std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      std::string error;
      if (!test_->RunText(text.str(), &error)) ADD_FAILURE() << file << ": " << error;
    }
  }

 private:
  FuzzTestBase* test_;
};

}  // namespace

FuzzTestBase::FuzzTestBase(std::string suite, std::string name, std::string source_file)
    : full_name_(suite + "." + name), source_file_(std::move(source_file)) {}

std::string FuzzTestBase::CorpusDir() const {
  const char* root = std::getenv("POLLEN_FUZZ_TESTDATA");
  if (root != nullptr && *root != '\0') return std::string(root) + "/" + full_name_;
  size_t slash = source_file_.rfind('/');
  std::string dir = slash == std::string::npos ? "." : source_file_.substr(0, slash);
  return dir + "/testdata/fuzz/" + full_name_;
}

FuzzTestBase& RegisterFuzzTest(FuzzTestBase* test, const char* file, int line) {
  Tests()[test->full_name()] = test;
  std::string name = test->full_name();
  std::string suite = name.substr(0, name.find('.'));
  std::string test_name = name.substr(name.find('.') + 1);
  ::testing::RegisterTest(suite.c_str(), test_name.c_str(), nullptr, nullptr, file, line,
                          [test]() -> ::testing::Test* { return new CorpusCase(test); });
  return *test;
}

FuzzTestBase* FindFuzzTest(const std::string& full_name) {
  auto it = Tests().find(full_name);
  return it == Tests().end() ? nullptr : it->second;
}

std::vector<std::string> FuzzTestNames() {
  std::vector<std::string> names;
  for (const auto& [name, test] : Tests()) names.push_back(name);
  return names;
}

FuzzTestBase*& CurrentFuzzTest() {
  static FuzzTestBase* current = nullptr;
  return current;
}

}  // namespace pollen::fuzztest

// A corpus file that is not one of this test's is rejected (-1): it never joins the corpus.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  pollen::fuzztest::FuzzTestBase* test = pollen::fuzztest::CurrentFuzzTest();
  if (test == nullptr) return -1;
  std::string error;
  return test->RunText(std::string_view(reinterpret_cast<const char*>(data), size), &error) ? 0
                                                                                            : -1;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  pollen::fuzztest::FuzzTestBase* test = pollen::fuzztest::CurrentFuzzTest();
  if (test == nullptr) return size;
  std::string text =
      test->MutateText(std::string_view(reinterpret_cast<const char*>(data), size), seed);
  if (text.size() > max_size) return size;  // too long to be a corpus file here: unchanged
  std::memcpy(data, text.data(), text.size());
  return text.size();
}
