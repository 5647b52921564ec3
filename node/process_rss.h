// The resident memory of this process and its children (the coordinator and its workers),
// for the figures a node reports to the controller.
#ifndef POLLEN_NODE_PROCESS_RSS_H_
#define POLLEN_NODE_PROCESS_RSS_H_

#include <cstdint>

namespace pollen::node {

// The resident set of this process plus that of each of its direct children, in bytes, from
// /proc/self/statm and /proc/PID/statm for the children listed in each thread's
// /proc/self/task/TID/children. Pages mapped by several of them (the workers' shared-memory
// regions, the coverage map) count once per process: an upper bound. Where the kernel has
// no children files (CONFIG_PROC_CHILDREN), only this process's own. 0 when /proc is not
// readable. Costs one small read per process (~10 µs each); thread-safe.
uint64_t ProcessTreeRssBytes();

}  // namespace pollen::node

#endif  // POLLEN_NODE_PROCESS_RSS_H_
