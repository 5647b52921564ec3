#include "node/failure.h"

#include <signal.h>

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pollen::node {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::MatchesRegex;
using ::testing::StartsWith;

// Wait statuses in the kernel's encoding (what waitpid returns, what the W* macros decode).
int Signaled(int sig) { return sig; }
int Exited(int code) { return code << 8; }

// An AddressSanitizer report as a -fsanitize=address target prints it: the target's log
// before it, the runtime and interceptor frames on top of the stack, a second stack
// (the allocation) after it.
constexpr char kAsanHeapOverflow[] = R"(INFO: parsing header
=================================================================
==4321==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000015 at pc 0x55f0c1a2b3c4 bp 0x7ffd5a1b2c30 sp 0x7ffd5a1b23e0
READ of size 4 at 0x602000000015 thread T0
    #0 0x55f0c1a2b3c3 in __asan_memcpy (/out/parser_fuzzer+0x1a2b3c3) (BuildId: 0123456789abcdef)
    #1 0x55f0c1b00a10 in ParseHeader(unsigned char const*, unsigned long) /src/parser/header.cc:42:17
    #2 0x55f0c1b00c20 in Parse(std::vector<unsigned char, std::allocator<unsigned char> > const&) /src/parser/parse.cc:88:10
    #3 0x55f0c1b00e30 in LLVMFuzzerTestOneInput /src/parser/fuzz.cc:12:3
    #4 0x55f0c1b01f40 in pollen::runtime::Worker::RunOne(unsigned char const*, unsigned long) /work/main/engine/runtime/worker.cc:86:3
    #5 0x7f29d6565249 in __libc_start_call_main csu/../sysdeps/nptl/libc_start_call_main.h:58:16
    #6 0x7f29d6565304 in __libc_start_main csu/../csu/libc-start.c:360:3
    #7 0x55f0c1a017a0 in _start (/out/parser_fuzzer+0x17a0) (BuildId: 0123456789abcdef)

0x602000000015 is located 0 bytes to the right of 5-byte region [0x602000000010,0x602000000015)
allocated by thread T0 here:
    #0 0x55f0c1a5d2ad in operator new[](unsigned long) (/out/parser_fuzzer+0x1a5d2ad)
    #1 0x55f0c1b00900 in AllocateBuffer(unsigned long) /src/parser/buffer.cc:7:10

SUMMARY: AddressSanitizer: heap-buffer-overflow /src/parser/header.cc:42:17 in ParseHeader(unsigned char const*, unsigned long)
Shadow bytes around the buggy address:
==4321==ABORTING
)";

constexpr char kUbsanOverflow[] =
    R"(/src/math/checked.cc:31:14: runtime error: signed integer overflow: 2147483647 + 1 cannot be represented in type 'int'
    #0 0x55d1c2001111 in AddChecked(int, int) /src/math/checked.cc:31:14
    #1 0x55d1c2002222 in Sum(std::vector<int, std::allocator<int> > const&) /src/math/sum.cc:9:12
    #2 0x55d1c2003333 in LLVMFuzzerTestOneInput /src/math/fuzz.cc:20:3
    #3 0x55d1c2004444 in pollen::runtime::Worker::RunOne(unsigned char const*, unsigned long) /work/main/engine/runtime/worker.cc:86:3

SUMMARY: UndefinedBehaviorSanitizer: undefined-behavior /src/math/checked.cc:31:14 in
)";

// Our runtime's report for a target without sanitizers: symbolized frames and frames that
// stay as module+offset (no symbolizer output for /bin/target, which does not exist).
constexpr char kPollenSegv[] = R"(starting
==123== ERROR: pollen: deadly signal SIGSEGV
    #0 0x55d1c2a0 in pollen::runtime::PrintStack() /work/main/engine/runtime/crash_handler.cc:101:13
    #1 0x55d1c3b0 in pollen::runtime::(anonymous namespace)::OnFatalSignal(int, siginfo_t*, void*) /work/main/engine/runtime/crash_handler.cc:49:3
    #2 0x7f3a1c042520 in __restore_rt (/lib/x86_64-linux-gnu/libc.so.6+0x42520)
    #3 0x55d1c2 in Foo(int) /src/foo.cc:12:3
    #4 0x55d1d0 (/bin/target+0x1d0)
    #5 0x55d1e0 in LLVMFuzzerTestOneInput /src/fuzz.cc:8:3
    #6 0x55d1f0 in pollen::runtime::Worker::RunOne(unsigned char const*, unsigned long) /work/main/engine/runtime/worker.cc:86:3
    #7 0x55d200 in main /work/main/engine/runtime/main.cc:105:12
)";

constexpr char kUncaughtException[] =
    R"(==77== ERROR: pollen: uncaught C++ exception St13runtime_error: planted exception
    #0 0x564911139e94 in __sanitizer_print_stack_trace (/out/exception_fuzzer+0x2fe94) (BuildId: 63be4a95)
    #1 0x56491113b838 in pollen::runtime::(anonymous namespace)::OnTerminate() /work/main/engine/runtime/crash_handler.cc:77:3
    #2 0x7f29d68a8e19  (/lib/x86_64-linux-gnu/libstdc++.so.6+0xa8e19) (BuildId: 289ee39f)
    #3 0x7f29d68a8e84 in std::terminate() (/lib/x86_64-linux-gnu/libstdc++.so.6+0xa8e84) (BuildId: 289ee39f)
    #4 0x7f29d68a90d7 in __cxa_throw (/lib/x86_64-linux-gnu/libstdc++.so.6+0xa90d7) (BuildId: 289ee39f)
    #5 0x56491113b40a in LLVMFuzzerTestOneInput /src/exception.cc:11:5
    #6 0x56491113ee00 in pollen::runtime::Worker::RunOne(unsigned char const*, unsigned long) /work/main/engine/runtime/worker.cc:86:3
)";

constexpr char kExitReport[] = R"(==55== ERROR: pollen: the target called exit()
    #0 0x5600001000 in pollen::runtime::PrintStack() /work/main/engine/runtime/crash_handler.cc:101:13
    #1 0x5600002000 in __run_exit_handlers (/lib/x86_64-linux-gnu/libc.so.6+0x3a5f5)
    #2 0x5600003000 in exit (/lib/x86_64-linux-gnu/libc.so.6+0x3a73a)
    #3 0x5600004000 in QuitEarly() /src/exit.cc:5:3
    #4 0x5600005000 in LLVMFuzzerTestOneInput /src/exit.cc:10:3
)";

constexpr char kTimeoutReport[] =
    R"(==66== ERROR: pollen: timeout: the execution ran past its time limit
    #0 0x5600001000 in pollen::runtime::PrintStack() /work/main/engine/runtime/crash_handler.cc:101:13
    #1 0x5600002000 in SpinForever(unsigned char const*) /src/hang.cc:4:3
    #2 0x5600003000 in LLVMFuzzerTestOneInput /src/hang.cc:9:3
)";

DeathContext Death(int wait_status, std::string stderr_text) {
  DeathContext d;
  d.wait_status = wait_status;
  d.stderr_text = std::move(stderr_text);
  return d;
}

// The signature's form: 16 lowercase hex digits.
MATCHER(IsSignature, "16 lowercase hex digits") {
  if (arg.size() != 16) return false;
  for (char c : arg) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

TEST(ClassifyFailureTest, AsanReportGivesTheBugTypeAndTheTargetsFrames) {
  Failure f = ClassifyFailure(Death(Signaled(SIGABRT), kAsanHeapOverflow));
  EXPECT_EQ(f.kind, "heap-buffer-overflow");
  EXPECT_EQ(f.summary,
            "ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000015 at pc "
            "0x55f0c1a2b3c4 bp 0x7ffd5a1b2c30 sp 0x7ffd5a1b23e0");
  // The interceptor, the runtime, libc and the allocation stack are not the target's frames.
  EXPECT_THAT(
      f.frames,
      ElementsAre("ParseHeader(unsigned char const*, unsigned long)",
                  "Parse(std::vector<unsigned char, std::allocator<unsigned char> > const&)",
                  "LLVMFuzzerTestOneInput"));
  // The report starts at the line that opens it; the target's log before it is dropped.
  EXPECT_THAT(f.report, StartsWith("==4321==ERROR: AddressSanitizer: heap-buffer-overflow"));
  EXPECT_THAT(f.report, HasSubstr("allocated by thread T0 here:"));
  EXPECT_THAT(f.signature, IsSignature());
}

TEST(ClassifyFailureTest, AsanSpecialKinds) {
  Failure leak = ClassifyFailure(Death(
      Exited(1), "==9==ERROR: LeakSanitizer: detected memory leaks\n\nDirect leak of 8 bytes\n"));
  EXPECT_EQ(leak.kind, "leak");
  Failure segv = ClassifyFailure(Death(
      Signaled(SIGSEGV),
      "AddressSanitizer:DEADLYSIGNAL\n==9==ERROR: AddressSanitizer: SEGV on unknown address 0x0\n"
      "    #0 0x1000 in Deref(int*) /src/d.cc:3:10\n"));
  EXPECT_EQ(segv.kind, "SEGV");
  EXPECT_THAT(segv.frames, ElementsAre("Deref(int*)"));
  EXPECT_THAT(segv.report, StartsWith("AddressSanitizer:DEADLYSIGNAL\n"));
}

// Regression: ASan's report for a too-large allocation says "requested allocation
// size ..." on its ERROR line; the kind (allocation-size-too-big, out-of-memory) is only on
// the SUMMARY line. Reading only the ERROR line gave kind "requested" (and "out" for ASan's
// "out of memory: allocator is trying to allocate ...") instead of "oom".
TEST(ClassifyFailureTest, AsanAllocationTooBigIsOom) {
  // Real output of clang-14's ASan for malloc(1 << 45).
  Failure big = ClassifyFailure(Death(
      Exited(1),
      "==32429==ERROR: AddressSanitizer: requested allocation size 0x200000000000 "
      "(0x200000001000 after adjustments for alignment, red zones etc.) exceeds maximum "
      "supported size of 0x10000000000 (thread T0)\n"
      "    #0 0x55f0c1a5d2ad in malloc (/out/t+0xa414e) (BuildId: e857)\n"
      "    #1 0x55f0c1b00900 in AllocateBuffer(unsigned long) /src/parser/buffer.cc:7:10\n"
      "\n"
      "==32429==HINT: if you don't care about these errors you may set "
      "allocator_may_return_null=1\n"
      "SUMMARY: AddressSanitizer: allocation-size-too-big (/out/t+0xa414e) (BuildId: e857) in "
      "malloc\n"));
  EXPECT_EQ(big.kind, "oom");
  Failure out = ClassifyFailure(
      Death(Exited(1),
            "==9==ERROR: AddressSanitizer: out of memory: allocator is trying to allocate 0x10000 "
            "bytes\n"
            "SUMMARY: AddressSanitizer: out-of-memory (/out/t+0xa414e) in malloc\n"));
  EXPECT_EQ(out.kind, "oom");
}

// engine/runtime/malloc_limit.cc's report: the allocation's stack, from the sanitizer.
TEST(ClassifyFailureTest, AnAllocationAboveTheMallocLimitIsOom) {
  Failure f = ClassifyFailure(
      Death(Exited(1),
            "==77== ERROR: pollen: out-of-memory (malloc(1610612736))\n"
            "    #0 0x55f0c1a5d2ad in __sanitizer_print_stack_trace (/out/t+0xa414e)\n"
            "    #1 0x55f0c1b00900 in AllocateBuffer(unsigned long) /src/buffer.cc:7:10\n"));
  EXPECT_EQ(f.kind, "oom");
  EXPECT_EQ(f.summary,
            "out of memory: out-of-memory (malloc(1610612736)) is above the malloc limit");
  EXPECT_THAT(f.frames, ElementsAre("AllocateBuffer(unsigned long)"));
}

TEST(ClassifyFailureTest, UbsanRuntimeError) {
  Failure f = ClassifyFailure(Death(Exited(1), kUbsanOverflow));
  EXPECT_EQ(f.kind, "undefined-behavior");
  EXPECT_EQ(f.summary,
            "UndefinedBehaviorSanitizer: runtime error: signed integer overflow: 2147483647 + 1 "
            "cannot be represented in type 'int'");
  EXPECT_THAT(f.frames, ElementsAre("AddChecked(int, int)",
                                    "Sum(std::vector<int, std::allocator<int> > const&)",
                                    "LLVMFuzzerTestOneInput"));
  EXPECT_THAT(f.report, StartsWith("/src/math/checked.cc:31:14: runtime error:"));
  EXPECT_THAT(f.signature, IsSignature());
}

TEST(ClassifyFailureTest, PollenDeadlySignalWithSymbolizedAndRawFrames) {
  Failure f = ClassifyFailure(Death(Signaled(SIGSEGV), kPollenSegv));
  EXPECT_EQ(f.kind, "SEGV");
  EXPECT_EQ(f.summary, "deadly signal SIGSEGV");
  // Runtime (pollen::runtime, the signal trampoline in libc) frames are skipped; a raw frame
  // keeps its module's base name and offset.
  EXPECT_THAT(f.frames, ElementsAre("Foo(int)", "target+0x1d0", "LLVMFuzzerTestOneInput"));
  EXPECT_THAT(f.report, StartsWith("==123== ERROR: pollen: deadly signal SIGSEGV\n"));
  EXPECT_THAT(f.signature, IsSignature());
}

TEST(ClassifyFailureTest, UncaughtException) {
  Failure f = ClassifyFailure(Death(Signaled(SIGABRT), kUncaughtException));
  EXPECT_EQ(f.kind, "uncaught-exception");
  EXPECT_EQ(f.summary, "uncaught C++ exception St13runtime_error: planted exception");
  EXPECT_THAT(f.frames, ElementsAre("LLVMFuzzerTestOneInput"));
}

TEST(ClassifyFailureTest, ExitInTarget) {
  DeathContext d = Death(Exited(3), kExitReport);
  d.exit_in_target = true;
  Failure f = ClassifyFailure(d);
  EXPECT_EQ(f.kind, "exit");
  EXPECT_EQ(f.summary, "the target called exit(3) inside LLVMFuzzerTestOneInput");
  EXPECT_THAT(f.frames, ElementsAre("QuitEarly()", "LLVMFuzzerTestOneInput"));
}

TEST(ClassifyFailureTest, KilledForTimeoutWinsOverTheReport) {
  DeathContext d = Death(Exited(77), kTimeoutReport);
  d.killed_for_timeout = true;
  d.timeout_s = 5;
  Failure f = ClassifyFailure(d);
  EXPECT_EQ(f.kind, "timeout");
  EXPECT_EQ(f.summary, "timeout: one execution ran longer than 5 s");
  EXPECT_THAT(f.frames, ElementsAre("SpinForever(unsigned char const*)", "LLVMFuzzerTestOneInput"));
  EXPECT_THAT(f.signature, IsSignature());
}

TEST(ClassifyFailureTest, StoppedAtTheHangCutoffIsAHangWhoseStackFindsTheTimeouts) {
  DeathContext d = Death(Exited(77), kTimeoutReport);
  d.killed_for_timeout = true;
  d.timeout_s = 5;
  d.cutoff_ms = 1000;
  Failure f = ClassifyFailure(d);
  EXPECT_EQ(f.kind, "hang");
  EXPECT_THAT(f.summary, StartsWith("hang: one execution ran past the hang cutoff of 1000 ms"));
  EXPECT_THAT(f.frames, ElementsAre("SpinForever(unsigned char const*)", "LLVMFuzzerTestOneInput"));
  // The coordinator folds a hang into the timeout with the same frames.
  d.cutoff_ms = 0;
  Failure timeout = ClassifyFailure(d);
  EXPECT_NE(f.signature, timeout.signature);
  EXPECT_EQ(FailureSignature("timeout", f.frames), timeout.signature);
}

TEST(ClassifyFailureTest, KilledForOom) {
  DeathContext d = Death(Signaled(SIGKILL), "allocating\n");
  d.killed_for_oom = true;
  d.rss_mb = 2100;
  d.rss_limit_mb = 2048;
  Failure f = ClassifyFailure(d);
  EXPECT_EQ(f.kind, "oom");
  EXPECT_EQ(f.summary, "out of memory: the worker used 2100 MiB (limit 2048 MiB)");
  EXPECT_THAT(f.frames, IsEmpty());
  EXPECT_THAT(f.signature, IsSignature());
}

TEST(ClassifyFailureTest, PlainSignalWithoutReport) {
  Failure f = ClassifyFailure(Death(Signaled(SIGILL), ""));
  EXPECT_EQ(f.kind, "ILL");
  EXPECT_EQ(f.summary, "deadly signal SIGILL");
  EXPECT_THAT(f.frames, IsEmpty());
  EXPECT_THAT(f.signature, IsSignature());

  Failure killed = ClassifyFailure(Death(Signaled(SIGKILL), ""));
  EXPECT_EQ(killed.kind, "KILL");
  EXPECT_THAT(killed.summary, HasSubstr("killed from outside"));

  Failure other = ClassifyFailure(Death(Signaled(SIGUSR2), ""));
  EXPECT_EQ(other.kind, "signal-" + std::to_string(SIGUSR2));
  EXPECT_EQ(other.summary, "deadly signal " + std::to_string(SIGUSR2));
}

TEST(ClassifyFailureTest, ExitCodeWithoutReportIsAnUnexpectedExit) {
  Failure f = ClassifyFailure(Death(Exited(3), "some log line\nanother one\n"));
  EXPECT_EQ(f.kind, "unexpected-exit");
  EXPECT_EQ(f.summary, "the worker exited with code 3");
  // Without a report, the last lines of stderr are the best hint.
  EXPECT_THAT(f.report, HasSubstr("another one"));
  EXPECT_THAT(f.frames, IsEmpty());
}

TEST(ClassifyFailureTest, LongStderrWithoutReportKeepsOnlyItsEnd) {
  std::string text(10000, 'x');
  text += "\nthe end\n";
  Failure f = ClassifyFailure(Death(Exited(1), text));
  EXPECT_LE(f.report.size(), 4096u + 1);  // + the newline the symbolizer may add
  EXPECT_THAT(f.report, HasSubstr("the end"));
}

TEST(ClassifyFailureTest, SignatureIsStableForTheSameKindAndFrames) {
  Failure a = ClassifyFailure(Death(Signaled(SIGABRT), kAsanHeapOverflow));
  Failure b = ClassifyFailure(Death(Signaled(SIGABRT), kAsanHeapOverflow));
  EXPECT_EQ(a.signature, b.signature);

  // Other addresses, pids, line numbers and a different fourth frame: the same bug.
  std::string moved =
      R"(==999==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6020000000ff at pc 0x1 bp 0x2 sp 0x3
READ of size 1 at 0x6020000000ff thread T0
    #0 0x11 in ParseHeader(unsigned char const*, unsigned long) /src/parser/header.cc:40:1
    #1 0x22 in Parse(std::vector<unsigned char, std::allocator<unsigned char> > const&) /src/parser/parse.cc:90:2
    #2 0x33 in LLVMFuzzerTestOneInput /src/parser/fuzz.cc:13:3
    #3 0x44 in SomethingElse() /src/other.cc:1:1
)";
  Failure c = ClassifyFailure(Death(Signaled(SIGABRT), moved));
  EXPECT_EQ(c.frames, a.frames);
  EXPECT_EQ(c.signature, a.signature);
}

TEST(ClassifyFailureTest, SignatureDiffersWhenATopFrameOrTheKindDiffers) {
  Failure base = ClassifyFailure(Death(Signaled(SIGSEGV), kPollenSegv));

  std::string other_top = kPollenSegv;
  other_top.replace(other_top.find("Foo(int)"), 8, "Bar(int)");
  Failure top = ClassifyFailure(Death(Signaled(SIGSEGV), other_top));
  EXPECT_EQ(top.frames[0], "Bar(int)");
  EXPECT_NE(top.signature, base.signature);

  std::string other_raw = kPollenSegv;
  other_raw.replace(other_raw.find("target+0x1d0"), 12, "target+0x2d0");
  Failure raw = ClassifyFailure(Death(Signaled(SIGSEGV), other_raw));
  EXPECT_NE(raw.signature, base.signature);

  // Same frames, another signal.
  std::string bus = kPollenSegv;
  bus.replace(bus.find("SIGSEGV"), 7, "SIGBUS");
  Failure kind = ClassifyFailure(Death(Signaled(SIGBUS), bus));
  EXPECT_EQ(kind.kind, "BUS");
  EXPECT_EQ(kind.frames, base.frames);
  EXPECT_NE(kind.signature, base.signature);
}

TEST(TopUserFramesTest, BothFrameFormsAndTheLimit) {
  const std::string report =
      "    #0 0x1000 in First(int) /src/a.cc:1:2\n"
      "    #1 0x2000 (/path/to/target+0x2000)\n"
      "    #2 0x3000 in Third (/path/to/target+0x3000)\n"
      "    #3 0x4000 in Fourth() /src/d.cc:4:4\n";
  EXPECT_THAT(TopUserFrames(report, 10),
              ElementsAre("First(int)", "target+0x2000", "Third", "Fourth()"));
  EXPECT_THAT(TopUserFrames(report, 2), ElementsAre("First(int)", "target+0x2000"));
  EXPECT_THAT(TopUserFrames(report, 0), IsEmpty());
}

// A typed fuzz test's failed assertion (fuzztest/): GoogleTest's reporting and the calls
// around the test's body are not the test's frames, so two assertions differ.
TEST(TopUserFramesTest, SkipsAFuzzTestsAssertionMachinery) {
  const std::string report =
      "    #0 0x1 in pollen::fuzztest::AbortOnFailure::OnTestPartResult(testing::TestPartResult "
      "const&) /f/m.cc:31:5\n"
      "    #1 0x2 in "
      "testing::internal::TestEventRepeater::OnTestPartResult(testing::TestPartResult const&) "
      "(/t+0x1)\n"
      "    #2 0x3 in testing::internal::AssertHelper::operator=(testing::Message const&) const "
      "(/t+0x2)\n"
      "    #3 0x4 in $_0::operator()(std::basic_string_view<char>, int, bool) const "
      "/src/kv_test.cc:40:1\n"
      "    #4 0x5 in void std::__invoke_impl<void, X>(Y) /usr/include/c++/12/bits/invoke.h:61:14\n"
      "    #5 0x6 in decltype(auto) std::apply<X>(Y) /usr/include/c++/12/tuple:1863:14\n"
      "    #6 0x7 in pollen::fuzztest::FuzzTest<int>::RunText(std::basic_string_view<char>) "
      "/f/fuzz_test.h:77:5\n"
      "    #7 0x8 in LLVMFuzzerTestOneInput /f/fuzz_test.cc:108:16\n";
  EXPECT_THAT(TopUserFrames(report, 3),
              ElementsAre("$_0::operator()(std::basic_string_view<char>, int, bool) const",
                          "LLVMFuzzerTestOneInput"));
}

TEST(TopUserFramesTest, SkipsRuntimeSanitizerAndLibcFrames) {
  const std::string report =
      "    #0 0x1 in __sanitizer_print_stack_trace /llvm/sanitizer_stacktrace.cpp:1:1\n"
      "    #1 0x2 in __asan::ReportGenericError(unsigned long) /llvm/asan_report.cpp:2:2\n"
      "    #2 0x3 in __interceptor_strlen /llvm/sanitizer_common_interceptors.inc:3:3\n"
      "    #3 0x4 in __ubsan_handle_add_overflow /llvm/ubsan_handlers.cpp:4:4\n"
      "    #4 0x5 in pollen::runtime::PrintStack() /pollen/crash_handler.cc:5:5\n"
      "    #5 0x6 in raise (/lib/x86_64-linux-gnu/libc.so.6+0x3bd60)\n"
      "    #6 0x7 in abort (/lib/x86_64-linux-gnu/libc.so.6+0x2253f)\n"
      "    #7 0x8 in __assert_fail (/lib/x86_64-linux-gnu/libc.so.6+0x3147a)\n"
      "    #8 0x9 (/lib/x86_64-linux-gnu/libc.so.6+0x1a0b6b)\n"
      "    #9 0xa (/usr/lib/x86_64-linux-gnu/libstdc++.so.6+0xa8e19)\n"
      "    #10 0xb in std::terminate() (/usr/lib/x86_64-linux-gnu/libstdc++.so.6+0xa8e84)\n"
      "    #11 0xc in __cxa_throw (/usr/lib/x86_64-linux-gnu/libstdc++.so.6+0xa90d7)\n"
      "    #12 0xd in UserCode(char const*) /src/user.cc:12:3\n"
      "    #13 0xe in main /pollen/main.cc:1:1\n"
      "    #14 0xf in _start (/path/to/target+0x77a0)\n";
  EXPECT_THAT(TopUserFrames(report, 3), ElementsAre("UserCode(char const*)"));
}

// Regression: A libc or libstdc++ frame that has a name but no source location
// ("in memcpy (/lib/x86_64-linux-gnu/libc.so.6+0x1a0b6b)": what SymbolizeReport writes for
// a libc frame without debug info, and what PrintStack writes from dladdr) loses its module
// to the frame regex before IsRuntimeFrame looks for "/libc.so", so it counts as the
// target's own frame and enters the signature. With "(BuildId: ...)" after the module (the
// sanitizers' format) the module stays in the name and the check works by accident.
TEST(TopUserFramesTest, SkipsNamedLibcFramesWithoutSourceLocation) {
  const std::string report =
      "    #0 0x1 in __memmove_avx_unaligned_erms (/lib/x86_64-linux-gnu/libc.so.6+0x1a0b6b)\n"
      "    #1 0x2 in _ZSt9terminatev (/usr/lib/x86_64-linux-gnu/libstdc++.so.6+0xa8e84)\n"
      "    #2 0x3 in CopyHeader(char*) /src/user.cc:12:3\n";
  EXPECT_THAT(TopUserFrames(report, 3), ElementsAre("CopyHeader(char*)"));
}

TEST(TopUserFramesTest, StopsAtTheEndOfTheFirstStack) {
  const std::string report =
      "==1==ERROR: AddressSanitizer: heap-use-after-free on address 0x1\n"
      "    #0 0x1 in Use() /src/u.cc:1:1\n"
      "\n"
      "freed by thread T0 here:\n"
      "    #0 0x2 in Free() /src/f.cc:2:2\n";
  EXPECT_THAT(TopUserFrames(report, 3), ElementsAre("Use()"));
}

TEST(TopUserFramesTest, NoFramesInText) {
  EXPECT_THAT(TopUserFrames("", 3), IsEmpty());
  EXPECT_THAT(TopUserFrames("no stack here\n#hash but no frame\n", 3), IsEmpty());
}

}  // namespace
}  // namespace pollen::node
