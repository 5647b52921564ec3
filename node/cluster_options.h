// The flags `pollen node` adds to those of `pollen fuzz` (node/fuzz_options.h): how to reach
// the broker and the controller, as which node, in which campaign, and how often to share
// coverage, digests and heartbeats. One list expanded into the options struct, the flag
// parser and --help.
#ifndef POLLEN_NODE_CLUSTER_OPTIONS_H_
#define POLLEN_NODE_CLUSTER_OPTIONS_H_

#include <cstdint>
#include <string>

#include "ops/http_address.h"

namespace pollen::node {

// X(type, name, default, help)
#define POLLEN_NODE_FLAGS(X)                                                                    \
  X(std::string, broker, "", "the broker's ZeroMQ endpoint, e.g. tcp://broker-host:7100")       \
  X(std::string, controller, "",                                                                \
    "the controller's ZeroMQ endpoint, e.g. tcp://controller-host:7200")                        \
  X(std::string, campaign, "",                                                                  \
    "campaign name; default the target's file name (nodes share "                               \
    "inputs only within one campaign and one build of the target)")                             \
  X(std::string, key, "",                                                                       \
    "this node's key pair PREFIX: reads PREFIX.key (pollen keygen); for the broker and the "    \
    "controller")                                                                               \
  X(std::string, broker_key, "", "the broker's public key file (broker.pub)")                   \
  X(std::string, controller_key, "", "the controller's public key file (controller.pub)")       \
  X(bool, insecure_plaintext, false,                                                            \
    "no authentication, no encryption, to the broker and the controller (local use only)")      \
  X(std::string, node_id, "", "this node's id, unique in the cluster; default HOST-PID-RANDOM") \
  X(uint32_t, delta_every, 3, "seconds between coverage deltas")                                \
  X(uint32_t, digest_every, 10, "seconds between digest pages of this node's own inputs")       \
  X(uint32_t, controller_every, 2, "seconds between heartbeats to the controller")              \
  X(bool, follow_builds, false,                                                                 \
    "fuzz the build the controller assigns to --campaign (no TARGET: it is pulled into "        \
    "WORKDIR/builds), and move to each new one (docs/nightly.md)")                              \
  X(std::string, http, "", ops::kHttpFlagHelp)

struct ClusterOptions {
#define POLLEN_DECLARE_FLAG(type, name, def, help) type name = def;
  POLLEN_NODE_FLAGS(POLLEN_DECLARE_FLAG)
#undef POLLEN_DECLARE_FLAG
};

}  // namespace pollen::node

#endif  // POLLEN_NODE_CLUSTER_OPTIONS_H_
