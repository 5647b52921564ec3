// Several coordinator observers as one: the coordinator takes one observer, and `pollen node`
// with both --broker and --controller has two links (node/cluster_link.h,
// node/controller_link.h).
//
// Every call goes to each observer in the order they were added; status fields are joined
// in that order; a stop is requested when any observer requests it. Thread safety: as the
// observers' (the coordinator's thread).
#ifndef POLLEN_NODE_OBSERVER_LIST_H_
#define POLLEN_NODE_OBSERVER_LIST_H_

#include <memory>
#include <string>
#include <vector>

#include "node/coordinator_observer.h"

namespace pollen::node {

class ObserverList : public CoordinatorObserver {
 public:
  // Adds `observer` (not null) after the others.
  void Add(std::unique_ptr<CoordinatorObserver> observer);
  size_t size() const { return observers_.size(); }

  void OnStart(CorpusFeed& feed) override;
  void OnTurn(CorpusFeed& feed) override;
  void OnEntryAdded(const CorpusEntry& entry) override;
  void OnNewFailure(const Failure& failure, const std::vector<uint8_t>& input) override;
  std::string StatusFields() const override;
  void OnStop(CorpusFeed& feed) override;
  bool StopRequested() const override;

 private:
  std::vector<std::unique_ptr<CoordinatorObserver>> observers_;
};

}  // namespace pollen::node

#endif  // POLLEN_NODE_OBSERVER_LIST_H_
