#include "controller/maintenance_worker.h"

namespace pollen::controller {

MaintenanceWorker::MaintenanceWorker(std::function<int64_t()> now_unix_ms)
    : now_unix_ms_(std::move(now_unix_ms)), thread_([this] { Loop(); }) {}

MaintenanceWorker::~MaintenanceWorker() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    queue_.clear();
  }
  wake_.notify_all();
  thread_.join();
}

void MaintenanceWorker::Schedule(MergedCorpus* corpus, std::string name,
                                 std::optional<Waiter> waiter) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (Job& job : queue_) {
      if (job.corpus == corpus) {
        if (waiter) job.waiters.push_back(std::move(*waiter));
        return;
      }
    }
    Job job{corpus, std::move(name), {}};
    if (waiter) job.waiters.push_back(std::move(*waiter));
    queue_.push_back(std::move(job));
  }
  wake_.notify_one();
}

std::vector<MaintenanceWorker::Done> MaintenanceWorker::TakeDone() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Done> done;
  done.swap(done_);
  return done;
}

size_t MaintenanceWorker::pending() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size() + running_;
}

void MaintenanceWorker::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    wake_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    Job job = std::move(queue_.front());
    queue_.pop_front();
    running_++;
    lock.unlock();
    Result<MaintainReport> report = job.corpus->Maintain(now_unix_ms_());
    lock.lock();
    running_--;
    done_.push_back(
        Done{job.corpus, std::move(job.name), std::move(report), std::move(job.waiters)});
  }
}

}  // namespace pollen::controller
