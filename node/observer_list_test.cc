// ObserverList: every call reaches every observer in order; status fields are joined; a stop
// is requested when any observer requests it.
#include "node/observer_list.h"

#include <gtest/gtest.h>

namespace pollen::node {
namespace {

class RecordingObserver : public CoordinatorObserver {
 public:
  RecordingObserver(std::string name, std::vector<std::string>* log)
      : name_(std::move(name)), log_(log) {}

  void OnStart(CorpusFeed&) override { log_->push_back(name_ + ".start"); }
  void OnTurn(CorpusFeed&) override { log_->push_back(name_ + ".turn"); }
  void OnEntryAdded(const CorpusEntry& e) override {
    log_->push_back(name_ + ".entry " + e.origin);
  }
  void OnNewFailure(const Failure& f, const std::vector<uint8_t>&) override {
    log_->push_back(name_ + ".failure " + f.signature);
  }
  std::string StatusFields() const override { return "\t" + name_; }
  void OnStop(CorpusFeed&) override { log_->push_back(name_ + ".stop"); }
  bool StopRequested() const override { return stop; }

  bool stop = false;

 private:
  std::string name_;
  std::vector<std::string>* log_;
};

// A feed the observers never touch.
class NullFeed : public CorpusFeed {
 public:
  NullFeed() : corpus_(nullptr, "local") {}
  void ExecuteInput(std::vector<uint8_t>, std::string) override {}
  size_t PendingExecutions() const override { return 0; }
  bool OfferEntry(std::vector<uint8_t>, std::vector<uint32_t>, std::string) override {
    return false;
  }
  const LiveCorpus& corpus() const override { return corpus_; }
  const GlobalCoverage& coverage() const override { std::abort(); }
  uint32_t max_len() const override { return 0; }
  uint64_t executions() const override { return 0; }
  uint64_t failures() const override { return 0; }

 private:
  LiveCorpus corpus_;
};

TEST(ObserverListTest, ForwardsEveryCallInOrderAndStopsWhenAnyObserverAsks) {
  std::vector<std::string> log;
  ObserverList list;
  auto a = std::make_unique<RecordingObserver>("a", &log);
  auto b = std::make_unique<RecordingObserver>("b", &log);
  RecordingObserver* b_ptr = b.get();
  list.Add(std::move(a));
  list.Add(std::move(b));
  EXPECT_EQ(list.size(), 2u);

  NullFeed feed;
  CorpusEntry entry;
  entry.origin = "h1";
  Failure failure;
  failure.signature = "s1";
  list.OnStart(feed);
  list.OnTurn(feed);
  list.OnEntryAdded(entry);
  list.OnNewFailure(failure, {});
  EXPECT_FALSE(list.StopRequested());
  b_ptr->stop = true;
  EXPECT_TRUE(list.StopRequested());
  EXPECT_EQ(list.StatusFields(), "\ta\tb");
  list.OnStop(feed);
  EXPECT_EQ(log, (std::vector<std::string>{"a.start", "b.start", "a.turn", "b.turn", "a.entry h1",
                                           "b.entry h1", "a.failure s1", "b.failure s1", "a.stop",
                                           "b.stop"}));
}

}  // namespace
}  // namespace pollen::node
