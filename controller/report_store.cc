#include "controller/report_store.h"

#include <utility>

namespace pollen::controller {
namespace {

std::string CampaignPrefix(const std::string& campaign) { return "r/" + campaign + "/"; }

// Reads the records whose keys were listed at the open, one Get each.
class ReportSource : public transfer::RecordSource {
 public:
  ReportSource(RegistryDb* db, std::string prefix, std::vector<std::string> names)
      : db_(db), prefix_(std::move(prefix)), names_(std::move(names)) {}

  Result<bool> Next(std::string* name, std::string* data) override {
    while (next_ < names_.size()) {
      const std::string& n = names_[next_++];
      Result<std::optional<std::string>> value = db_->Get(prefix_ + n);
      if (!value.ok()) return value.status();
      if (!value->has_value()) continue;  // replaced since the open
      *name = n;
      *data = std::move(**value);
      return true;
    }
    return false;
  }

 private:
  RegistryDb* db_;
  std::string prefix_;
  std::vector<std::string> names_;
  size_t next_ = 0;
};

}  // namespace

Status ReportStore::Put(const PutReportRequest& request) {
  const std::string night_prefix = CampaignPrefix(request.campaign) + request.night + "/";
  std::vector<std::string> old;
  Status listed = db_->ForEach(night_prefix, [&](std::string_view key, std::string_view) {
    old.emplace_back(key);
    return true;
  });
  if (!listed.ok()) return listed;
  for (const std::string& key : old) {
    Status deleted = db_->Delete(key);
    if (!deleted.ok()) return deleted;
  }
  for (const ReportFile& f : request.files) {
    Status put = db_->Put(night_prefix + f.name, f.data);
    if (!put.ok()) return put;
  }
  return Status::Ok();
}

Result<std::unique_ptr<transfer::RecordSource>> ReportStore::Open(const std::string& campaign,
                                                                  const std::string& night,
                                                                  const std::string& resume_after) {
  const std::string prefix = CampaignPrefix(campaign);
  std::vector<std::string> names;
  Status listed = db_->ForEach(prefix, [&](std::string_view key, std::string_view) {
    names.emplace_back(key.substr(prefix.size()));
    return true;
  });
  if (!listed.ok()) return listed;
  std::string only = night;
  if (night == "latest") only = names.empty() ? "" : names.back().substr(0, names.back().find('/'));
  std::vector<std::string> chosen;
  for (std::string& n : names) {
    if (n <= resume_after) continue;
    if (!night.empty() && n.substr(0, n.find('/')) != only) continue;
    chosen.push_back(std::move(n));
  }
  if (night == "latest" && only.empty()) chosen.clear();
  return std::unique_ptr<transfer::RecordSource>(new ReportSource(db_, prefix, std::move(chosen)));
}

}  // namespace pollen::controller
