// ControllerLink with the controller's streams: a crash too large for a message (pushed in a
// stream, or dropped after the controller refused it three times), the merged corpus a
// joining node gets, and inputs pushed to the campaign while the node runs. Every wait
// polls with a deadline.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "node/controller_link_test_util.h"

namespace pollen::node::testing {
namespace {

TEST_F(ControllerLinkTest, ACrashTooLargeForAMessageIsStreamed) {
  StartController();
  StartLink([](ControllerSessionOptions& s) { s.limits.max_message_bytes = 64 << 10; });
  const std::vector<uint8_t> big(200 << 10, 'x');
  link_->OnNewFailure(MakeFailure("sig-big"), big);
  // The controller holds the crash once the stream has ended; the node counts it streamed
  // when the controller's answer comes, a turn or more later (a TSan run showed the gap).
  ASSERT_TRUE(TurnUntil(
      [&] { return link_->session().counters().crashes_streamed == 1 && Crashes().size() == 1; }));
  EXPECT_EQ(Crashes()[0].input_size, big.size());
  EXPECT_EQ(link_->session().counters().too_large, 0u);
  link_->OnStop(feed_);
  link_.reset();

  // Without streams: dropped and counted, never sent.
  link_ = MakeLink("node-b", [](ControllerSessionOptions& s) {
    s.limits.max_message_bytes = 64 << 10;
    s.streams.reset();
  });
  ASSERT_TRUE(link_->Start(kTimeoutMs));
  link_->OnStart(feed_);
  link_->OnNewFailure(MakeFailure("sig-big-2"), big);
  EXPECT_EQ(link_->session().counters().too_large, 1u);
  link_->OnStop(feed_);
  EXPECT_EQ(Crashes().size(), 1u);
  link_.reset();
}

// A controller that refuses the stream (its record limit, 100 KiB here, is below the
// reproducer) refuses it every time: the node tries 3 times, then drops the crash.
TEST_F(ControllerLinkTest, AStreamedCrashTheControllerRefusesIsDroppedAfterThreeTries) {
  StartController("tcp://127.0.0.1:*", [](controller::ControllerOptions& o) {
    o.limits.stream.max_record_bytes = 100 << 10;
  });
  StartLink([](ControllerSessionOptions& s) { s.limits.max_message_bytes = 64 << 10; });
  link_->OnNewFailure(MakeFailure("sig-big"), std::vector<uint8_t>(200 << 10, 'x'));
  ASSERT_TRUE(TurnUntil([&] { return link_->session().counters().crashes_dropped == 1; }));
  EXPECT_EQ(link_->session().counters().crashes_streamed, 0u);
  EXPECT_TRUE(Crashes().empty());
  link_->OnStop(feed_);
  link_.reset();
}

TEST_F(ControllerLinkTest, AJoiningNodeGetsTheMergedCorpusOfferedAndItsPushedInputsRun) {
  StartController();
  // Another node published three entries, and a developer pushed two inputs.
  Ask<controller::RegisterReply>(controller::testing::MakeRegister("node-b"));
  Ask<controller::InputsReply>(
      controller::NewInputsRequest{"node-b",
                                   {controller::testing::MakeEntry("held here", {1}),
                                    controller::testing::MakeEntry("entry two", {2, 3}),
                                    controller::testing::MakeEntry("entry three", {4})}});
  Result<controller::PushResult> pushed =
      Push("push-test", {{"a", "pushed one"}, {"b", "pushed two"}});
  ASSERT_TRUE(pushed.ok()) << pushed.status().message();
  feed_.Add("held here", {1});  // the restored corpus holds one of them

  // The executions are full at first: the pushed inputs wait, the entries do not.
  feed_.pending = 100000;
  StartLink();
  ASSERT_TRUE(TurnUntil([&] { return feed_.offered.size() == 2; }));
  EXPECT_EQ(feed_.offered["entry two"], (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(feed_.offered["entry three"], (std::vector<uint32_t>{4}));
  ASSERT_TRUE(TurnUntil([&] { return link_->session().counters().joined; }));
  for (int i = 0; i < 10; i++) link_->OnTurn(feed_);
  EXPECT_TRUE(feed_.executed.empty());
  feed_.pending = 0;
  ASSERT_TRUE(TurnUntil([&] { return feed_.executed.size() == 2; }));
  std::sort(feed_.executed.begin(), feed_.executed.end());
  EXPECT_EQ(feed_.executed, (std::vector<std::string>{"pushed one", "pushed two"}));
  EXPECT_EQ(link_->counters().fetched_held, 1u);
  EXPECT_EQ(link_->counters().fetched_offered, 2u);
  EXPECT_EQ(link_->session().counters().fetched, 5u);
  EXPECT_EQ(link_->session().counters().pushed, 0u);  // all in the joining fetch
  EXPECT_THAT(link_->StatusFields(), HasSubstr(" fetched 5 pushed 0"));
}

// How soon is not judged here (a busy machine stretches it; TurnUntil's deadline is 10 s):
// that the input comes while the node runs, through the push path and not a new join, once.
TEST_F(ControllerLinkTest, AnInputPushedWhileTheNodeRunsReachesIt) {
  StartController();
  StartLink();
  ASSERT_TRUE(TurnUntil([&] { return link_->session().counters().joined; }));
  Result<controller::PushResult> pushed = Push("push-late", {{"x", "pushed late"}});
  ASSERT_TRUE(pushed.ok()) << pushed.status().message();
  ASSERT_TRUE(TurnUntil([&] { return feed_.executed.size() == 1; }));
  EXPECT_EQ(feed_.executed[0], "pushed late");
  EXPECT_EQ(link_->session().counters().pushed, 1u);
  // Nothing more comes: the cursor is past it.
  const uint64_t now = link_->session().counters().heartbeats;
  ASSERT_TRUE(TurnUntil([&] { return link_->session().counters().heartbeats >= now + 2; }));
  EXPECT_EQ(feed_.executed.size(), 1u);
  EXPECT_EQ(link_->session().counters().pushed, 1u);
}

}  // namespace
}  // namespace pollen::node::testing
