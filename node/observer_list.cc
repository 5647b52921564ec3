#include "node/observer_list.h"

#include "base/status.h"

namespace pollen::node {

void ObserverList::Add(std::unique_ptr<CoordinatorObserver> observer) {
  POLLEN_CHECK(observer != nullptr);
  observers_.push_back(std::move(observer));
}

void ObserverList::OnStart(CorpusFeed& feed) {
  for (auto& o : observers_) o->OnStart(feed);
}

void ObserverList::OnTurn(CorpusFeed& feed) {
  for (auto& o : observers_) o->OnTurn(feed);
}

void ObserverList::OnEntryAdded(const CorpusEntry& entry) {
  for (auto& o : observers_) o->OnEntryAdded(entry);
}

void ObserverList::OnNewFailure(const Failure& failure, const std::vector<uint8_t>& input) {
  for (auto& o : observers_) o->OnNewFailure(failure, input);
}

std::string ObserverList::StatusFields() const {
  std::string fields;
  for (const auto& o : observers_) fields += o->StatusFields();
  return fields;
}

void ObserverList::OnStop(CorpusFeed& feed) {
  for (auto& o : observers_) o->OnStop(feed);
}

bool ObserverList::StopRequested() const {
  for (const auto& o : observers_) {
    if (o->StopRequested()) return true;
  }
  return false;
}

}  // namespace pollen::node
