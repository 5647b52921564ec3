#include "engine/runtime/hook_sites.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "base/proc_stat.h"

namespace pollen::runtime {
namespace {

constexpr uint8_t kCallRel32 = 0xE8;
// The 5-byte NOP Intel and AMD recommend: nopl 0x0(%rax,%rax,1).
constexpr uint8_t kNop5[5] = {0x0F, 0x1F, 0x44, 0x00, 0x00};

size_t Slot(uintptr_t address, size_t mask) {
  return static_cast<size_t>((address * 0x9E3779B97F4A7C15ULL) >> 32) & mask;
}

}  // namespace

int ThreadCount() {
  // num_threads is field 20.
  const std::vector<std::string> fields = base::ProcSelfStatFields();
  return fields.size() > 17 ? std::atoi(fields[17].c_str()) : 0;
}

bool HookSites::Init(const uintptr_t* hooks, size_t num_hooks) {
#if defined(__x86_64__) && defined(__linux__)
  num_hooks_ = 0;
  for (size_t i = 0; i < num_hooks && num_hooks_ < kMaxHooks; i++) hooks_[num_hooks_++] = hooks[i];
  num_regions_ = 0;
  FILE* maps = std::fopen("/proc/self/maps", "re");
  if (maps == nullptr) return false;
  char line[4096];
  while (std::fgets(line, sizeof(line), maps) != nullptr && num_regions_ < kMaxRegions) {
    unsigned long start = 0, end = 0;
    char perms[5] = {};
    if (std::sscanf(line, "%lx-%lx %4s", &start, &end, perms) != 3) continue;
    // Only code mapped read and execute, never written: what the compiler's calls live in.
    if (std::strcmp(perms, "r-xp") != 0) continue;
    regions_[num_regions_++] = {start, end};
  }
  std::fclose(maps);
  usable_ = num_regions_ > 0 && num_hooks_ > 0;
  return usable_;
#else
  (void)hooks;
  (void)num_hooks;
  return false;
#endif
}

void HookSites::Note(uintptr_t return_address) {
  if (!usable_) return;
  const uintptr_t call = return_address - 5;
  // Every address met is in the table, kept or not: an entry's run meets the same comparisons
  // millions of times in a loop (libsndfile's sample loops), and a lookup is all they cost.
  const size_t mask = 2 * kCapacity - 1;
  size_t i = Slot(call, mask);
  for (; table_[i] != 0; i = (i + 1) & mask) {
    if (table_[i] == call) return;
  }
  if (seen_ >= kCapacity) return;  // the table half full: nothing more is learned
  table_[i] = call;
  seen_++;
  bool mapped = false;
  for (size_t r = 0; r < num_regions_ && !mapped; r++) mapped = regions_[r].Holds(call);
  if (!mapped) return;
  const auto* bytes = reinterpret_cast<const uint8_t*>(call);
  if (bytes[0] != kCallRel32) return;  // an indirect call, through a register or the GOT
  int32_t rel;
  std::memcpy(&rel, bytes + 1, sizeof(rel));
  const uintptr_t target = return_address + static_cast<uintptr_t>(static_cast<intptr_t>(rel));
  bool hook = false;
  for (size_t h = 0; h < num_hooks_; h++) hook |= hooks_[h] == target;
  if (!hook) return;
  Site& site = sites_[count_++];
  site.address = call;
  std::memcpy(site.call, bytes, sizeof(site.call));
}

bool HookSites::PatchRegion(const Region& region, bool off) {
  uintptr_t low = UINTPTR_MAX, high = 0;
  for (size_t i = 0; i < count_; i++) {
    const Site& site = sites_[i];
    if (!region.Holds(site.address)) continue;
    // Each site holds its call or the NOP: anything else is not the code it was learned
    // from (another module loaded at its place), and is left alone.
    const void* now = reinterpret_cast<const void*>(site.address);
    if (std::memcmp(now, site.call, 5) != 0 && std::memcmp(now, kNop5, 5) != 0) return false;
    low = site.address < low ? site.address : low;
    high = site.address + 5 > high ? site.address + 5 : high;
  }
  if (high == 0) return true;  // no site here
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  low &= ~(page - 1);
  high = (high + page - 1) & ~(page - 1);
  void* start = reinterpret_cast<void*>(low);
  // Execute stays on: this very code may lie in the pages it rewrites.
  if (mprotect(start, high - low, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) return false;
  for (size_t i = 0; i < count_; i++) {
    const Site& site = sites_[i];
    if (!region.Holds(site.address)) continue;
    std::memcpy(reinterpret_cast<void*>(site.address), off ? kNop5 : site.call, 5);
  }
  // The bytes are as asked either way; pages left writable only end the patching.
  if (mprotect(start, high - low, PROT_READ | PROT_EXEC) != 0) usable_ = false;
  return true;
}

bool HookSites::SetOff(bool off) {
  if (off == off_) return true;
  // Nothing to patch yet (no site seen, or the calls go through the PLT): the hooks run.
  if (off && (!usable_ || count_ == 0)) return false;
  // Another thread could be running the bytes rewritten. Hooks left off stay off then: that
  // is safe, they only cost the comparisons' operands (the worker asks for a new process).
  if (ThreadCount() != 1) {
    usable_ = false;
    return false;
  }
  // No signal handler of the target's may run half-written code.
  sigset_t all, old;
  sigfillset(&all);
  sigprocmask(SIG_SETMASK, &all, &old);
  bool ok = true;
  size_t done = 0;  // regions written in full
  while (ok && done < num_regions_) {
    ok = PatchRegion(regions_[done], off);
    if (ok) done++;
  }
  if (ok) {
    off_ = off;
  } else {
    usable_ = false;
    if (off) {
      // Every region written gets its calls back, and the hooks stay on for good; a region
      // that failed did so before writing. What cannot be written back stays off: off_
      // says so, and the worker reports it.
      bool back = true;
      for (size_t b = 0; b < done; b++) back = PatchRegion(regions_[b], false) && back;
      off_ = !back;
    }
    // A failed turn on leaves the regions after it off: off_ stays true.
  }
  sigprocmask(SIG_SETMASK, &old, nullptr);
  return ok;
}

}  // namespace pollen::runtime
