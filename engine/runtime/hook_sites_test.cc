#include "engine/runtime/hook_sites.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

#include "engine/cmp_log.h"
#include "engine/runtime/sancov_state.h"

extern "C" int HookSitesTestEqual(uint32_t a, uint32_t b);
extern "C" int HookSitesTestSwitch(uint64_t tag);
extern "C" uintptr_t HookSitesTestCallOther();

namespace pollen::runtime {
namespace {

// A megabyte each: not on the stack. One per test, since a refused patch retires one.
HookSites g_sites[5];
engine::CmpLog g_log;

// Patching needs x86-64 and a process of one thread: a sanitizer's helper thread (TSan) rules
// it out, as it would in a worker.
#define SKIP_UNLESS_PATCHABLE()                                              \
  do {                                                                       \
    if (!kX86_64) GTEST_SKIP() << "call sites are patched on x86-64 only";   \
    if (ThreadCount() != 1) GTEST_SKIP() << "another thread runs (TSan's?)"; \
  } while (false)

#if defined(__x86_64__)
constexpr bool kX86_64 = true;
#else
constexpr bool kX86_64 = false;
#endif

bool Logged(uint64_t a, uint64_t b) {
  for (uint32_t i = 0; i < g_log.num_ints; i++) {
    if (g_log.ints[i].a == a && g_log.ints[i].b == b) return true;
  }
  return false;
}

// Initialises `sites` and lets it learn the two functions' call sites.
void Learn(HookSites& sites) {
  uintptr_t hooks[HookSites::kMaxHooks];
  ASSERT_TRUE(sites.Init(hooks, ComparisonHookAddresses(hooks)));
  GetSancovState().hook_sites = &sites;
  EXPECT_EQ(HookSitesTestEqual(0x1234, 0x1234), 1);
  EXPECT_EQ(HookSitesTestEqual(0x1234, 0x5678), 0);  // the same site again
  EXPECT_EQ(HookSitesTestSwitch(300), 2);
  GetSancovState().hook_sites = nullptr;
}

TEST(HookSitesTest, PatchedSitesSkipTheHooksAndRestoredOnesCallThemAgain) {
  SKIP_UNLESS_PATCHABLE();
  HookSites& sites = g_sites[0];
  Learn(sites);
  // One site for the comparison (seen twice, kept once) and one for the switch.
  ASSERT_EQ(sites.size(), 2u);
  SancovState& s = GetSancovState();
  g_log.Clear();
  s.cmp_log = &g_log;

  ASSERT_TRUE(sites.SetOff(true));
  EXPECT_TRUE(sites.off());
  // The code still computes what it did: only the hooks are skipped.
  EXPECT_EQ(HookSitesTestEqual(0xAAAA0001, 0xBBBB0002), 0);
  EXPECT_EQ(HookSitesTestEqual(7, 7), 1);
  EXPECT_EQ(HookSitesTestSwitch(4096), 9);
  EXPECT_EQ(HookSitesTestSwitch(4097), 0);
  EXPECT_FALSE(Logged(0xAAAA0001, 0xBBBB0002));
  EXPECT_FALSE(Logged(4097, 17));

  ASSERT_TRUE(sites.SetOff(false));
  EXPECT_FALSE(sites.off());
  EXPECT_EQ(HookSitesTestEqual(0xAAAA0001, 0xBBBB0002), 0);
  EXPECT_EQ(HookSitesTestSwitch(4097), 0);
  EXPECT_TRUE(Logged(0xAAAA0001, 0xBBBB0002));
  EXPECT_TRUE(Logged(4097, 17));  // the switch hook logs every case
  s.cmp_log = nullptr;
}

TEST(HookSitesTest, OnlyDirectCallsOfTheHooksAreKept) {
  SKIP_UNLESS_PATCHABLE();
  HookSites& sites = g_sites[1];
  uintptr_t hooks[HookSites::kMaxHooks];
  ASSERT_TRUE(sites.Init(hooks, ComparisonHookAddresses(hooks)));
  // A direct call, of a function that is not a hook.
  const uintptr_t other = HookSitesTestCallOther();
  ASSERT_EQ(*reinterpret_cast<const uint8_t*>(other - 5), 0xE8);
  sites.Note(other);
  // Code that is no call at all: the first bytes of a function.
  sites.Note(reinterpret_cast<uintptr_t>(&HookSitesTestEqual) + 5);
  // Outside any executable mapping: a stack address.
  int local = 0;
  sites.Note(reinterpret_cast<uintptr_t>(&local) + 5);
  EXPECT_EQ(sites.size(), 0u);
  // Met again, each is known as no site (one lookup, the path a loop's calls take).
  sites.Note(other);
  sites.Note(reinterpret_cast<uintptr_t>(&local) + 5);
  EXPECT_EQ(sites.size(), 0u);
  EXPECT_FALSE(sites.SetOff(true));  // nothing to patch: the hooks run
  EXPECT_FALSE(sites.off());
  EXPECT_TRUE(sites.usable());  // sites may still come
}

TEST(HookSitesTest, LearningStopsOnceTheTableHoldsItsCapacity) {
  SKIP_UNLESS_PATCHABLE();
  HookSites& sites = g_sites[4];
  uintptr_t hooks[HookSites::kMaxHooks];
  ASSERT_TRUE(sites.Init(hooks, ComparisonHookAddresses(hooks)));
  // kCapacity addresses that are no call site (past the stack, never read): the table keeps
  // each, and then learns nothing more, not even a real site.
  int local = 0;
  const uintptr_t base = reinterpret_cast<uintptr_t>(&local) + 5;
  for (size_t i = 0; i < HookSites::kCapacity; i++) sites.Note(base + 8 * i);
  GetSancovState().hook_sites = &sites;
  EXPECT_EQ(HookSitesTestEqual(1, 2), 0);
  GetSancovState().hook_sites = nullptr;
  EXPECT_EQ(sites.size(), 0u);
  EXPECT_FALSE(sites.SetOff(true));
}

TEST(HookSitesTest, NoPatchWhileAnotherThreadRuns) {
  SKIP_UNLESS_PATCHABLE();
  HookSites& sites = g_sites[2];
  Learn(sites);
  ASSERT_EQ(sites.size(), 2u);
  std::promise<void> release;
  std::thread other([&release] { release.get_future().wait(); });
  EXPECT_EQ(ThreadCount(), 2);
  EXPECT_FALSE(sites.SetOff(true));
  EXPECT_FALSE(sites.off());
  release.set_value();
  other.join();
  // Refused once, refused for good: the hooks stay on.
  EXPECT_FALSE(sites.usable());
  EXPECT_FALSE(sites.SetOff(true));
  g_log.Clear();
  GetSancovState().cmp_log = &g_log;
  EXPECT_EQ(HookSitesTestEqual(0xCCCC0003, 0xDDDD0004), 0);
  GetSancovState().cmp_log = nullptr;
  EXPECT_TRUE(Logged(0xCCCC0003, 0xDDDD0004));
}

TEST(HookSitesTest, HooksOffWhenAThreadStartsStayOffUntilItEnds) {
  SKIP_UNLESS_PATCHABLE();
  HookSites& sites = g_sites[3];
  Learn(sites);
  ASSERT_TRUE(sites.SetOff(true));
  std::promise<void> release;
  std::thread other([&release] { release.get_future().wait(); });
  EXPECT_FALSE(sites.SetOff(false));
  EXPECT_TRUE(sites.off());  // what the worker reports as stuck
  g_log.Clear();
  GetSancovState().cmp_log = &g_log;
  EXPECT_EQ(HookSitesTestEqual(0xEEEE0005, 0xFFFF0006), 0);
  EXPECT_FALSE(Logged(0xEEEE0005, 0xFFFF0006));
  release.set_value();
  other.join();
  // The kernel counts a joined thread a little longer: wait until it is gone (bounded).
  for (int i = 0; i < 2000 && ThreadCount() != 1; i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_EQ(ThreadCount(), 1);
  // Alone again: the calls can be written back (a new worker would have them anyway).
  EXPECT_TRUE(sites.SetOff(false));
  EXPECT_FALSE(sites.off());
  EXPECT_EQ(HookSitesTestEqual(0xEEEE0005, 0xFFFF0006), 0);
  GetSancovState().cmp_log = nullptr;
  EXPECT_TRUE(Logged(0xEEEE0005, 0xFFFF0006));
}

}  // namespace
}  // namespace pollen::runtime

// The runtime brings a weak main (main.cc) that would run this binary as a fuzz target, and
// libgtest_main's is never pulled in past it: this one is strong.
int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
