// What a worker's hello must say for pollen to drive it (node/worker_messages.h).
#include "node/worker_messages.h"

#include <string>

#include "engine/mutator.h"
#include "gtest/gtest.h"

namespace pollen::node {
namespace {

WorkerHello Current() {
  WorkerHello hello;
  hello.protocol_version = kWorkerProtocolVersion;
  hello.mutator_table = engine::Mutator::TableFingerprint();
  return hello;
}

TEST(CheckHelloBuildTest, TakesATargetOfThisBuild) {
  EXPECT_TRUE(CheckHelloBuild(Current(), "t").ok());
}

TEST(CheckHelloBuildTest, RefusesAnotherProtocol) {
  WorkerHello hello = Current();
  hello.protocol_version = kWorkerProtocolVersion + 1;
  Status st = CheckHelloBuild(hello, "fuzzer_x");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("fuzzer_x"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("rebuild it"), std::string::npos) << st.message();
}

// A target linked before a change of the mutator table, or before the hello said which
// (0): its chains would be replayed with other mutations.
TEST(CheckHelloBuildTest, RefusesAnotherMutatorTable) {
  EXPECT_NE(engine::Mutator::TableFingerprint(), 0u);
  for (uint64_t table : {uint64_t{0}, engine::Mutator::TableFingerprint() ^ 1}) {
    WorkerHello hello = Current();
    hello.mutator_table = table;
    Status st = CheckHelloBuild(hello, "fuzzer_y");
    ASSERT_FALSE(st.ok()) << table;
    EXPECT_NE(st.message().find("mutators differ"), std::string::npos) << st.message();
    EXPECT_NE(st.message().find("rebuild it"), std::string::npos) << st.message();
  }
}

}  // namespace
}  // namespace pollen::node
