#include "controller/campaign_stores.h"

#include <filesystem>
#include <system_error>

namespace pollen::controller {

Result<CampaignStore*> CampaignStores::Get(const CampaignRecord& campaign,
                                           const std::string& build_id) {
  if (CampaignStore* open = FindOpen(campaign.name, build_id)) return open;
  const std::string path = PathOf(campaign.name, build_id);
  std::error_code ec;
  std::filesystem::create_directories(dir_ + "/" + campaign.name, ec);
  if (ec) return Status::Error("cannot create " + dir_ + "/" + campaign.name + ": " + ec.message());
  auto corpus = MergedCorpus::Open(path, {campaign.target, build_id});
  if (!corpus.ok()) return corpus.status();
  auto entry = std::make_unique<CampaignStore>();
  entry->campaign = campaign.name;
  entry->build_id = build_id;
  entry->corpus = std::move(corpus).value();
  auto triage =
      CrashTriage::Load(&entry->corpus->store(), db_, "x/" + campaign.name + "/" + build_id + "/");
  if (!triage.ok()) return triage.status();
  entry->triage = std::move(triage).value();
  CampaignStore* result = entry.get();
  open_.emplace(std::make_pair(campaign.name, build_id), std::move(entry));
  return result;
}

CampaignStore* CampaignStores::FindOpen(const std::string& campaign,
                                        const std::string& build_id) const {
  auto it = open_.find({campaign, build_id});
  return it == open_.end() ? nullptr : it->second.get();
}

void CampaignStores::ForEachOpen(const std::function<void(CampaignStore&)>& fn) {
  for (auto& [key, store] : open_) fn(*store);
}

Result<PushedCorpus*> CampaignStores::Pushed(const CampaignRecord& campaign, bool create) {
  if (auto it = pushed_.find(campaign.name); it != pushed_.end()) return it->second.get();
  const std::string path = dir_ + "/" + campaign.name + "/_pushed";
  std::error_code ec;
  if (!create && !std::filesystem::exists(path, ec)) return static_cast<PushedCorpus*>(nullptr);
  std::filesystem::create_directories(dir_ + "/" + campaign.name, ec);
  if (ec) return Status::Error("cannot create " + dir_ + "/" + campaign.name + ": " + ec.message());
  auto pushed = PushedCorpus::Open(path, campaign.target);
  if (!pushed.ok()) return pushed.status();
  PushedCorpus* result = pushed->get();
  pushed_.emplace(campaign.name, std::move(pushed).value());
  return result;
}

}  // namespace pollen::controller
