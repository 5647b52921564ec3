#include "controller/campaign_samples.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <utility>

namespace pollen::controller {
namespace {

constexpr std::string_view kPrefix = "sample/";

}  // namespace

std::string CampaignSampleKey(std::string_view campaign, int64_t unix_ms) {
  char time[24];
  std::snprintf(time, sizeof(time), "%016" PRId64, unix_ms);
  return std::string(kPrefix) + std::string(campaign) + "/" + time;
}

std::string EncodeCampaignSample(const CampaignSample& s) {
  char text[256];
  std::snprintf(text, sizeof(text),
                "%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu32
                " %" PRIu32,
                s.executions, s.execs_per_second, s.edges, s.features, s.corpus_entries, s.crashes,
                s.nodes_alive, s.nodes_lost);
  return text;
}

bool DecodeCampaignSample(std::string_view text, CampaignSample* s) {
  if (text.size() >= 256) return false;
  const std::string copy(text);
  int consumed = -1;
  const int fields =
      std::sscanf(copy.c_str(),
                  "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu32
                  " %" SCNu32 "%n",
                  &s->executions, &s->execs_per_second, &s->edges, &s->features, &s->corpus_entries,
                  &s->crashes, &s->nodes_alive, &s->nodes_lost, &consumed);
  return fields == 8 && consumed == static_cast<int>(copy.size());
}

Status CampaignSamples::Load() {
  samples_.clear();
  return db_->ForEach(kPrefix, [&](std::string_view key, std::string_view value) {
    // sample/<campaign>/<16 digits>
    const std::string_view rest = key.substr(kPrefix.size());
    const size_t slash = rest.rfind('/');
    CampaignSample s;
    int64_t ms = -1;
    if (slash == std::string_view::npos || slash == 0 || rest.size() - slash != 17 ||
        std::sscanf(std::string(rest.substr(slash + 1)).c_str(), "%" SCNd64, &ms) != 1 || ms < 0 ||
        !DecodeCampaignSample(value, &s)) {
      skipped_++;
      return true;
    }
    s.unix_ms = ms;
    samples_[std::string(rest.substr(0, slash))].push_back(s);  // key order: oldest first
    last_ms_ = std::max(last_ms_, ms);
    return true;
  });
}

Status CampaignSamples::Record(const StatusReply& status, int64_t now_unix_ms) {
  last_ms_ = now_unix_ms;
  std::vector<std::pair<std::string, std::string>> puts;
  for (const CampaignStatus& c : status.campaigns) {
    CampaignSample s;
    s.unix_ms = now_unix_ms;
    s.executions = c.executions;
    s.execs_per_second = c.execs_per_second;
    s.edges = c.edges;
    s.features = c.features;
    s.corpus_entries = c.corpus_entries;
    s.crashes = c.crashes;
    s.nodes_alive = c.nodes_alive;
    s.nodes_lost = c.nodes_lost;
    puts.emplace_back(CampaignSampleKey(c.name, now_unix_ms), EncodeCampaignSample(s));
    samples_[c.name].push_back(s);
  }
  if (Status w = db_->Write({}, puts); !w.ok()) return w;
  for (auto& [campaign, samples] : samples_) {
    if (samples.size() > kMaxPerCampaign) {
      if (Status t = Thin(campaign, &samples); !t.ok()) return t;
    }
  }
  return Status::Ok();
}

const std::vector<CampaignSample>& CampaignSamples::Of(std::string_view campaign) const {
  static const std::vector<CampaignSample> kNone;
  auto it = samples_.find(campaign);
  return it == samples_.end() ? kNone : it->second;
}

Status CampaignSamples::Thin(const std::string& campaign, std::vector<CampaignSample>* samples) {
  const size_t older = samples->size() / 2;
  std::vector<std::string> deletes;
  std::vector<CampaignSample> kept;
  kept.reserve(samples->size());
  for (size_t i = 0; i < samples->size(); i++) {
    if (i < older && i % 2 == 1) {
      deletes.push_back(CampaignSampleKey(campaign, (*samples)[i].unix_ms));
    } else {
      kept.push_back((*samples)[i]);
    }
  }
  if (Status w = db_->Write(deletes, {}); !w.ok()) return w;
  *samples = std::move(kept);
  return Status::Ok();
}

}  // namespace pollen::controller
