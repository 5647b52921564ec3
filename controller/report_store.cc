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
  const std::string prefix = CampaignPrefix(request.campaign);
  const std::string night_prefix = prefix + request.night + "/";
  // The night's old files go, and the oldest nights beyond kMaxNights, in the same write.
  std::vector<std::string> deletes;
  std::vector<std::string> nights;
  Status listed = db_->ForEach(prefix, [&](std::string_view key, std::string_view) {
    std::string_view rest = key.substr(prefix.size());
    std::string_view night = rest.substr(0, rest.find('/'));
    if (key.starts_with(night_prefix)) deletes.emplace_back(key);
    if (night != request.night && (nights.empty() || nights.back() != night)) {
      nights.emplace_back(night);
    }
    return true;
  });
  if (!listed.ok()) return listed;
  std::vector<std::string> old_nights;
  if (nights.size() + 1 > kMaxNights) {
    const size_t drop = nights.size() + 1 - kMaxNights;
    old_nights.assign(nights.begin(), nights.begin() + static_cast<long>(drop));
  }
  if (!old_nights.empty()) {
    listed = db_->ForEach(prefix, [&](std::string_view key, std::string_view) {
      std::string_view rest = key.substr(prefix.size());
      std::string_view night = rest.substr(0, rest.find('/'));
      if (night <= old_nights.back() && night != request.night) deletes.emplace_back(key);
      return true;
    });
    if (!listed.ok()) return listed;
  }
  std::vector<std::pair<std::string, std::string>> puts;
  for (const ReportFile& f : request.files) puts.emplace_back(night_prefix + f.name, f.data);
  generations_[request.campaign]++;
  return db_->Write(deletes, puts);
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

Result<std::vector<std::pair<std::string, std::string>>> ReportStore::FileOfEachNight(
    const std::string& campaign, const std::string& file) const {
  const std::string prefix = CampaignPrefix(campaign);
  std::vector<std::pair<std::string, std::string>> files;
  Status listed = db_->ForEach(prefix, [&](std::string_view key, std::string_view value) {
    std::string_view rest = key.substr(prefix.size());
    const size_t slash = rest.find('/');
    if (slash != std::string_view::npos && rest.substr(slash + 1) == file) {
      files.emplace_back(std::string(rest.substr(0, slash)), std::string(value));
    }
    return true;
  });
  if (!listed.ok()) return listed;
  return files;
}

Result<std::vector<std::pair<std::string, std::string>>> ReportStore::NightFiles(
    const std::string& campaign, const std::string& night) const {
  const std::string prefix = CampaignPrefix(campaign) + night + "/";
  std::vector<std::pair<std::string, std::string>> files;
  Status listed = db_->ForEach(prefix, [&](std::string_view key, std::string_view value) {
    files.emplace_back(std::string(key.substr(prefix.size())), std::string(value));
    return true;
  });
  if (!listed.ok()) return listed;
  return files;
}

}  // namespace pollen::controller
