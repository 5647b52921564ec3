// The controller's maintenance thread: merges and compacts campaign corpora
// (MergedCorpus::Maintain) away from the service loop, so that nodes' heartbeats and inputs
// are answered while a large store is rewritten.
//
// One job at a time, in the order scheduled; at most one job per corpus waits in the queue
// (scheduling it again only adds the new waiters). Whoever asked for a merge (a developer's
// mergeCorpus request) is a Waiter, handed back with the result, so that the service loop
// can reply.
//
// Thread safety: Schedule and TakeDone from one thread (the service loop); the worker thread
// only runs Maintain. The corpora must outlive the worker.
#ifndef POLLEN_CONTROLLER_MAINTENANCE_WORKER_H_
#define POLLEN_CONTROLLER_MAINTENANCE_WORKER_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/status.h"
#include "controller/merged_corpus.h"

namespace pollen::controller {

class MaintenanceWorker {
 public:
  // Who gets the result: a peer's routing id and the id of its request.
  struct Waiter {
    std::string routing_id;
    uint64_t request_id = 0;
  };

  struct Done {
    MergedCorpus* corpus = nullptr;
    std::string name;  // for logs: "campaign/build"
    Result<MaintainReport> report = Status::Error("not run");
    std::vector<Waiter> waiters;
  };

  // `now_unix_ms` gives the time to record (a function, for tests).
  explicit MaintenanceWorker(std::function<int64_t()> now_unix_ms);
  // Waits for the job running (a merge cannot be interrupted), drops the queued ones.
  ~MaintenanceWorker();
  MaintenanceWorker(const MaintenanceWorker&) = delete;
  MaintenanceWorker& operator=(const MaintenanceWorker&) = delete;

  // Queues a merge of `corpus` unless one is already queued (then only `waiter` is added).
  void Schedule(MergedCorpus* corpus, std::string name, std::optional<Waiter> waiter);

  // The jobs finished since the last call.
  std::vector<Done> TakeDone();

  // Jobs queued or running.
  size_t pending() const;

 private:
  struct Job {
    MergedCorpus* corpus;
    std::string name;
    std::vector<Waiter> waiters;
  };
  void Loop();

  const std::function<int64_t()> now_unix_ms_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::deque<Job> queue_;
  std::vector<Done> done_;
  size_t running_ = 0;
  bool stop_ = false;
  std::thread thread_;  // last: starts after everything it uses
};

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_MAINTENANCE_WORKER_H_
