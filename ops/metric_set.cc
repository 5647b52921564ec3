#include "ops/metric_set.h"

#include <prometheus/text_serializer.h>

#include <sstream>

#include "base/status.h"

namespace pollen::ops {

prometheus::ClientMetric& MetricSet::Add(const std::string& name, const std::string& help,
                                         prometheus::MetricType type, const MetricLabels& labels) {
  prometheus::MetricFamily* family = nullptr;
  for (auto& f : families_) {
    if (f.name == name) family = &f;
  }
  if (family == nullptr) {
    families_.push_back({name, help, type, {}});
    family = &families_.back();
  }
  POLLEN_CHECK(family->type == type);  // one name, one type: a bug otherwise
  prometheus::ClientMetric& metric = family->metric.emplace_back();
  for (const auto& [label, value] : labels) metric.label.push_back({label, value});
  return metric;
}

void MetricSet::Counter(const std::string& name, const std::string& help, double value,
                        const MetricLabels& labels) {
  Add(name, help, prometheus::MetricType::Counter, labels).counter.value = value;
}

void MetricSet::Gauge(const std::string& name, const std::string& help, double value,
                      const MetricLabels& labels) {
  Add(name, help, prometheus::MetricType::Gauge, labels).gauge.value = value;
}

std::string MetricSet::Text() const {
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, families_);
  return out.str();
}

}  // namespace pollen::ops
