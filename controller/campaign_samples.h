// Each campaign's figures over time, for the dashboard's plots (docs/dashboard.md): every
// minute (--sample-every), what `pollen status` shows of it (executions, exec/s, edges, features,
// merged corpus entries, crashes, nodes alive and lost), kept in the registry's database so that a
// restarted controller still has them. At most kMaxPerCampaign samples per campaign: when
// full, every other sample of the older half goes, so a plot keeps its whole span at a
// coarser step (2,000 minutes at full resolution, then halving).
//
// Thread safety: none; the controller's service thread owns it.
#ifndef POLLEN_CONTROLLER_CAMPAIGN_SAMPLES_H_
#define POLLEN_CONTROLLER_CAMPAIGN_SAMPLES_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "controller/client/controller_message.h"
#include "controller/registry_db.h"

namespace pollen::controller {

struct CampaignSample {
  int64_t unix_ms = 0;
  uint64_t executions = 0;
  uint64_t execs_per_second = 0;
  uint64_t edges = 0;
  uint64_t features = 0;
  uint64_t corpus_entries = 0;
  uint64_t crashes = 0;
  uint32_t nodes_alive = 0;
  uint32_t nodes_lost = 0;
  bool operator==(const CampaignSample&) const = default;
};

class CampaignSamples {
 public:
  static constexpr size_t kMaxPerCampaign = 2000;
  static constexpr int64_t kEveryMs = 60000;

  // `db` must outlive it.
  explicit CampaignSamples(RegistryDb* db, int64_t every_ms = kEveryMs)
      : db_(db), every_ms_(every_ms) {}

  // Reads what the database holds; records that cannot be read are skipped (counted).
  Status Load();
  // Whether a sample is due at `now_unix_ms` (kEveryMs after the last one).
  bool Due(int64_t now_unix_ms) const { return now_unix_ms - last_ms_ >= every_ms_; }
  int64_t every_ms() const { return every_ms_; }
  // Records a sample of every campaign in `status`, taken at `now_unix_ms`.
  Status Record(const StatusReply& status, int64_t now_unix_ms);
  // The samples of `campaign`, oldest first (empty for one never sampled).
  const std::vector<CampaignSample>& Of(std::string_view campaign) const;

  size_t skipped() const { return skipped_; }

 private:
  // Drops every other sample of the older half of `samples` (and their records).
  Status Thin(const std::string& campaign, std::vector<CampaignSample>* samples);

  RegistryDb* db_;
  const int64_t every_ms_;
  std::map<std::string, std::vector<CampaignSample>, std::less<>> samples_;
  int64_t last_ms_ = 0;
  size_t skipped_ = 0;
};

// The record's key and value (exposed for tests).
std::string CampaignSampleKey(std::string_view campaign, int64_t unix_ms);
std::string EncodeCampaignSample(const CampaignSample& sample);
bool DecodeCampaignSample(std::string_view text, CampaignSample* sample);

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_CAMPAIGN_SAMPLES_H_
