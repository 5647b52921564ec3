#include "node/symbolizer.h"

#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstdio>

namespace pollen::node {

// A function of this binary to look up: not inlined, so it has an address of its own.
__attribute__((noinline)) int SymbolizerTestProbe(int x) { return x * 3 + 1; }

namespace {

using ::testing::HasSubstr;

// A raw frame as the runtime prints it: "#N 0xPC (MODULE+0xOFFSET)".
std::string RawFrameOfProbe() {
  Dl_info info{};
  void* fn = reinterpret_cast<void*>(&SymbolizerTestProbe);
  EXPECT_NE(dladdr(fn, &info), 0);
  char exe[PATH_MAX] = {};
  EXPECT_GT(readlink("/proc/self/exe", exe, sizeof(exe) - 1), 0);
  const uintptr_t offset =
      reinterpret_cast<uintptr_t>(fn) - reinterpret_cast<uintptr_t>(info.dli_fbase);
  char line[PATH_MAX + 64];
  std::snprintf(line, sizeof(line), "    #0 0x%lx (%s+0x%lx)",
                static_cast<unsigned long>(reinterpret_cast<uintptr_t>(fn)), exe,
                static_cast<unsigned long>(offset));
  return line;
}

void ExpectSymbolized(Symbolizer::Kind kind, const char* path) {
  if (access(path, X_OK) != 0) GTEST_SKIP() << path << " is not installed";
  // The runtime's raw frame, and a sanitizer's (two spaces, a build id).
  std::string asan_frame = RawFrameOfProbe();
  asan_frame.replace(asan_frame.find(" ("), 2, "  (");
  asan_frame.replace(0, 6, "    #2");
  const std::string report = "==1== ERROR: pollen: deadly signal SIGSEGV\n" + RawFrameOfProbe() +
                             "\n    #1 0x10 (/nonexistent/module+0x10)\n" + asan_frame +
                             " (BuildId: 95a25fa155f6bf83b6fe011788e9484054f507f4)\n";
  const std::string out = SymbolizeReportWith({kind, path}, report);
  EXPECT_THAT(out, ::testing::ContainsRegex(
                       "#0 0x[0-9a-f]+ in pollen::node::SymbolizerTestProbe\\(int\\) "));
  EXPECT_THAT(out, ::testing::ContainsRegex(
                       "#2 0x[0-9a-f]+ in pollen::node::SymbolizerTestProbe\\(int\\) "));
  EXPECT_THAT(out, HasSubstr("symbolizer_test.cc:"));
  // What cannot be symbolized stays as it was; the rest of the report too.
  EXPECT_THAT(out, HasSubstr("    #1 0x10 (/nonexistent/module+0x10)\n"));
  EXPECT_THAT(out, HasSubstr("==1== ERROR: pollen: deadly signal SIGSEGV\n"));
}

TEST(SymbolizerTest, LlvmSymbolizerNamesAFunctionOfThisBinary) {
  ExpectSymbolized(Symbolizer::Kind::kLlvm, "/usr/lib/llvm-14/bin/llvm-symbolizer");
}

// Pollen's image has addr2line, not llvm-symbolizer (docs/deploy.md).
TEST(SymbolizerTest, Addr2lineNamesAFunctionOfThisBinary) {
  ExpectSymbolized(Symbolizer::Kind::kAddr2line, "/usr/bin/addr2line");
}

TEST(SymbolizerTest, WithoutASymbolizerTheReportIsUnchanged) {
  const std::string report = RawFrameOfProbe() + "\n";
  EXPECT_EQ(SymbolizeReportWith({}, report), report);
  EXPECT_EQ(SymbolizerTestProbe(1), 4);  // keeps the probe alive
}

}  // namespace
}  // namespace pollen::node
