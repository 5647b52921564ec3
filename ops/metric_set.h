// The metrics a service exposes, built afresh from a snapshot of its counters at each scrape
// (docs/deploy.md, "Metrics"): a service keeps its counters as it always has and maps them
// here, so nothing is counted twice and nothing on a hot path touches a metrics library.
//
// Families are in the order first added; samples of one family in the order added. Names
// follow Prometheus' conventions (pollen_<service>_<what>[_total|_bytes|_seconds]).
// Not thread-safe: one MetricSet per scrape.
#ifndef POLLEN_OPS_METRIC_SET_H_
#define POLLEN_OPS_METRIC_SET_H_

#include <prometheus/metric_family.h>

#include <string>
#include <utility>
#include <vector>

namespace pollen::ops {

using MetricLabels = std::vector<std::pair<std::string, std::string>>;

class MetricSet {
 public:
  // A monotonically increasing total since the process started.
  void Counter(const std::string& name, const std::string& help, double value,
               const MetricLabels& labels = {});
  // A value that goes up and down.
  void Gauge(const std::string& name, const std::string& help, double value,
             const MetricLabels& labels = {});

  const std::vector<prometheus::MetricFamily>& families() const { return families_; }

  // Prometheus' text exposition format (version 0.0.4).
  std::string Text() const;

 private:
  prometheus::ClientMetric& Add(const std::string& name, const std::string& help,
                                prometheus::MetricType type, const MetricLabels& labels);

  std::vector<prometheus::MetricFamily> families_;
};

}  // namespace pollen::ops

#endif  // POLLEN_OPS_METRIC_SET_H_
