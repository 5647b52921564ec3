// The target's calls of the comparison hooks (__sanitizer_cov_trace_*cmp*, the switch hook),
// switched off and on between fuzz units by rewriting each call in place: a `call rel32`
// becomes a 5-byte NOP and back (issue 20, class 5). Comparison hooks are about half of a
// comparison-heavy parser's run time (re2); mutants that log nothing run that much faster,
// while the entry's own runs, the input-to-state stage, gates and the value profile still
// run with every hook (the worker decides, worker.cc).
//
// Sites are learned, never guessed: the hooks note their own return address while the worker
// collects (on the entry's runs), and a site is kept only when the five bytes before it are
// a direct call (E8 rel32) whose target is one of the hooks, inside an executable mapping of
// this process. Sites never seen on an entry's run stay hooked, which costs only their calls.
//
// x86-64 Linux only; anywhere else, or when the pages cannot be made writable (a kernel or
// security policy that refuses it), the hooks simply stay on. A patch is written only while
// this process has one thread: no other thread can be executing the bytes it rewrites.
#ifndef POLLEN_ENGINE_RUNTIME_HOOK_SITES_H_
#define POLLEN_ENGINE_RUNTIME_HOOK_SITES_H_

#include <cstddef>
#include <cstdint>

namespace pollen::runtime {

class HookSites {
 public:
  static constexpr size_t kCapacity = 1 << 15;  // sites kept at most
  static constexpr size_t kMaxHooks = 16;
  static constexpr size_t kMaxRegions = 64;

  // Reads this process's executable mappings and takes the hooks' addresses. Returns false
  // (and the hooks stay on for good) where sites cannot be patched: not x86-64 Linux, or no
  // executable mapping found.
  bool Init(const uintptr_t* hooks, size_t num_hooks);

  // From a hook, with its return address: keeps the call site if it is a direct call of a
  // hook in an executable mapping and not yet known. No allocation, no system call; an
  // address met before costs one lookup.
  void Note(uintptr_t return_address);

  // Makes every known site call its hook (off = false) or skip it (off = true). Returns
  // whether the sites are now in that state: false for off with no site to patch, or with
  // another thread running. On a failure patching stops for the life of the process, and
  // the calls are put back when that can be done; off() is true while any stays a NOP.
  bool SetOff(bool off);

  bool usable() const { return usable_; }
  bool off() const { return off_; }
  size_t size() const { return count_; }

 private:
  struct Region {
    uintptr_t start;
    uintptr_t end;
    // Whether the 5-byte call at `call` lies inside.
    bool Holds(uintptr_t call) const { return start <= call && call + 5 <= end; }
  };
  struct Site {
    uintptr_t address;  // of the call instruction
    uint8_t call[5];    // its bytes, E8 rel32
  };

  // Rewrites the sites of one region with mprotect around the writes. False, with nothing
  // written, when a site holds neither its call nor the NOP or the pages cannot be made
  // writable.
  bool PatchRegion(const Region& region, bool off);

  bool usable_ = false;
  bool off_ = false;
  uintptr_t hooks_[kMaxHooks] = {};
  size_t num_hooks_ = 0;
  Region regions_[kMaxRegions] = {};
  size_t num_regions_ = 0;
  // Open addressing on the address of every call noted (0: empty), a site or not, and the
  // sites in the order noted.
  uintptr_t table_[2 * kCapacity] = {};
  size_t seen_ = 0;  // addresses in table_
  Site sites_[kCapacity] = {};
  size_t count_ = 0;
};

// The number of threads of this process (/proc/self/stat), 0 when it cannot be read.
int ThreadCount();

}  // namespace pollen::runtime

#endif  // POLLEN_ENGINE_RUNTIME_HOOK_SITES_H_
