#include "controller/campaign_registry.h"

namespace pollen::controller {
namespace {

constexpr char kPrefix[] = "c/";

std::string Key(std::string_view name) { return kPrefix + std::string(name); }

}  // namespace

Result<std::unique_ptr<CampaignRegistry>> CampaignRegistry::Load(RegistryDb* db) {
  std::unique_ptr<CampaignRegistry> registry(new CampaignRegistry(db));
  Status error;
  Status scanned = db->ForEach(kPrefix, [&](std::string_view key, std::string_view value) {
    Result<CampaignRecord> record = DecodeCampaignRecord(value);
    if (!record.ok()) {
      error = Status::Error("registry " + db->path() + ", key " + std::string(key) + ": " +
                            record.status().message());
      return false;
    }
    std::string name = record->name;
    registry->campaigns_.emplace(std::move(name), std::move(record).value());
    return true;
  });
  if (!scanned.ok()) return scanned;
  if (!error.ok()) return error;
  return registry;
}

std::optional<ErrorReply> CampaignRegistry::CheckRegistration(const RegisterRequest& r) const {
  const CampaignRecord* campaign = Find(r.campaign);
  if (campaign != nullptr && campaign->target != r.target) {
    return ErrorReply{ErrorCode::kConflict, "campaign '" + r.campaign + "' is for target '" +
                                                campaign->target + "', not '" + r.target +
                                                "': choose another campaign name"};
  }
  return std::nullopt;
}

Result<const CampaignRecord*> CampaignRegistry::Register(const RegisterRequest& r,
                                                         int64_t now_unix_ms) {
  auto it = campaigns_.find(r.campaign);
  CampaignRecord record;
  if (it != campaigns_.end()) {
    record = it->second;
  } else {
    record.name = r.campaign;
    record.target = r.target;
    record.created_unix_ms = now_unix_ms;
  }
  record.options = r.options;
  BuildInfo* build = nullptr;
  for (BuildInfo& b : record.builds) {
    if (b.build_id == r.build_id) build = &b;
  }
  if (build == nullptr) {
    record.builds.push_back({r.build_id, now_unix_ms, now_unix_ms});
    record.current_build = r.build_id;
  } else {
    build->last_seen_unix_ms = now_unix_ms;
  }
  if (Status s = Save(record); !s.ok()) return s;
  auto [pos, inserted] = campaigns_.insert_or_assign(record.name, std::move(record));
  return &pos->second;
}

std::variant<const CampaignRecord*, ErrorReply> CampaignRegistry::AssignBuild(
    const std::string& campaign, const std::string& target, const std::string& build_id,
    int64_t now_unix_ms) {
  RegisterRequest as_node;
  as_node.campaign = campaign;
  as_node.target = target;
  as_node.build_id = build_id;
  if (auto error = CheckRegistration(as_node)) return *error;
  const CampaignRecord* known = Find(campaign);
  if (known != nullptr) as_node.options = known->options;  // a push has no fuzzing flags
  Result<const CampaignRecord*> registered = Register(as_node, now_unix_ms);
  if (!registered.ok()) return ErrorReply{ErrorCode::kStorage, registered.status().message()};
  CampaignRecord record = **registered;
  record.assigned_build = build_id;
  if (Status s = Save(record); !s.ok()) return ErrorReply{ErrorCode::kStorage, s.message()};
  auto [pos, inserted] = campaigns_.insert_or_assign(record.name, std::move(record));
  return &pos->second;
}

const CampaignRecord* CampaignRegistry::Find(std::string_view name) const {
  auto it = campaigns_.find(name);
  return it == campaigns_.end() ? nullptr : &it->second;
}

std::variant<std::string, ErrorReply> CampaignRegistry::ResolveBuild(const CampaignRef& ref) const {
  const CampaignRecord* campaign = Find(ref.name);
  if (campaign == nullptr) {
    return ErrorReply{ErrorCode::kUnknownCampaign, UnknownCampaign(ref.name)};
  }
  if (ref.build_id.empty()) return campaign->current_build;
  for (const BuildInfo& b : campaign->builds) {
    if (b.build_id == ref.build_id) return b.build_id;
  }
  return ErrorReply{ErrorCode::kUnknownCampaign,
                    "campaign '" + ref.name + "' has no build '" + ref.build_id + "'"};
}

std::string CampaignRegistry::UnknownCampaign(std::string_view name) const {
  constexpr size_t kMaxNamed = 10;
  std::string text =
      "no campaign '" + std::string(name) + "' (" + kHowCampaignsBegin + "; this controller has: ";
  if (campaigns_.empty()) text += "none yet";
  size_t named = 0;
  for (const auto& [campaign, record] : campaigns_) {
    if (named == kMaxNamed) {
      text += ", and " + std::to_string(campaigns_.size() - kMaxNamed) + " more";
      break;
    }
    text += (named++ == 0 ? "" : ", ") + campaign;
  }
  return text + ")";
}

Status CampaignRegistry::SetStopped(std::string_view name, bool stopped) {
  auto it = campaigns_.find(name);
  if (it == campaigns_.end()) return Status::Error(UnknownCampaign(name));
  if (it->second.stopped == stopped) return Status::Ok();
  CampaignRecord record = it->second;
  record.stopped = stopped;
  if (Status s = Save(record); !s.ok()) return s;
  it->second = std::move(record);
  return Status::Ok();
}

Status CampaignRegistry::Save(const CampaignRecord& record) {
  return db_->Put(Key(record.name), EncodeCampaignRecord(record));
}

}  // namespace pollen::controller
