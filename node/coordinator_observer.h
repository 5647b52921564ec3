// The coordinator's two small doors for what it does not do itself (the links of `pollen
// node` to the broker and the controller, node/cluster_link.h and node/controller_link.h):
// an observer it calls at fixed points of its loop, and a feed through which the observer
// reads the corpus and hands it inputs. Several observers are one through node/observer_list.h.
//
// `pollen fuzz` sets no observer; the coordinator then behaves as if these did not exist.
// Both interfaces are used from the coordinator's thread only, and the feed is valid only
// inside the observer's calls (between OnStart and OnStop).
#ifndef POLLEN_NODE_COORDINATOR_OBSERVER_H_
#define POLLEN_NODE_COORDINATOR_OBSERVER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "node/failure.h"
#include "node/global_coverage.h"
#include "node/live_corpus.h"

namespace pollen::node {

// What an observer may read of the coordinator and give it.
class CorpusFeed {
 public:
  virtual ~CorpusFeed() = default;

  // Queues `input` to run once, as it is, in the next idle worker (before any more fuzzing,
  // as the start-up inputs are); it joins the corpus, recorded with `origin`, if it adds
  // coverage. An input longer than max_len() runs truncated to it.
  virtual void ExecuteInput(std::vector<uint8_t> input, std::string origin) = 0;

  // Inputs queued to run as they are (ExecuteInput, and start-up inputs) not yet run.
  virtual size_t PendingExecutions() const = 0;

  // Adds `input` with `features` measured by another process running the same build, without
  // running it, if they add coverage to the map; records `origin`. Returns whether it joined
  // the corpus. Features beyond the map are ignored: the caller checks they are in range.
  virtual bool OfferEntry(std::vector<uint8_t> input, std::vector<uint32_t> features,
                          std::string origin) = 0;

  virtual const LiveCorpus& corpus() const = 0;
  virtual const GlobalCoverage& coverage() const = 0;
  virtual uint32_t max_len() const = 0;
  virtual uint64_t executions() const = 0;  // by every worker so far
  virtual uint64_t failures() const = 0;    // distinct failures saved so far
};

// Called by the coordinator at fixed points. Implementations must not block for long: the
// workers wait while they run.
class CoordinatorObserver {
 public:
  virtual ~CoordinatorObserver() = default;

  // Once, when the workers are up and the coverage of the restored corpus is in the map,
  // before the start-up inputs run.
  virtual void OnStart(CorpusFeed& feed) = 0;

  // On every turn of the coordinator's loop: at least every 50 ms, more often when workers
  // report.
  virtual void OnTurn(CorpusFeed& feed) = 0;

  // After `entry` joined the corpus (found here, a start-up input, or one handed over
  // through the feed: entry.origin tells).
  virtual void OnEntryAdded(const CorpusEntry& entry) = 0;

  // After a failure whose signature this coordinator had not seen was saved, with the
  // input that reproduces it: minimized (node/crash_minimizer.h, within --minimize-time)
  // unless the run was being interrupted (node/interrupt.h: Interrupted()) when it was found.
  virtual void OnNewFailure(const Failure& failure, const std::vector<uint8_t>& input) = 0;

  // Fields appended to each status line, each starting with a tab; "" for none.
  virtual std::string StatusFields() const = 0;

  // Once, when the loop has ended (limit, failure, Ctrl-C, StopRequested), before the
  // workers stop. The feed may be read, not fed.
  virtual void OnStop(CorpusFeed& feed) = 0;

  // Whether the observer asks for the run to end as on Ctrl-C (workers stopped, corpus
  // flushed) but with exit code 0: the controller's `pollen stop CAMPAIGN`. Checked on every
  // turn of the loop (so a stop takes effect within 50 ms of becoming true) and, by `pollen
  // node`, once before the coordinator starts. May be called from the coordinator's thread
  // at any time after construction. The default never asks.
  virtual bool StopRequested() const { return false; }
};

}  // namespace pollen::node

#endif  // POLLEN_NODE_COORDINATOR_OBSERVER_H_
