// The open stores of the campaign builds: DATA/campaigns/<name>/<build-id>/, one storage/
// CorpusStore each, holding the build's merged corpus (MergedCorpus) and its triaged crashes
// (CrashTriage). A store opens the first time something needs it (a registration, a
// message from one of its nodes, a developer's request) and stays open until the
// controller stops: a restarted controller reopens them as they are asked for.
//
// Names were validated (controller/client/safe_name.h) before they reach here: they cannot leave
// DATA/campaigns/.
//
// Thread safety: Get, FindOpen and Pushed on the service thread only. The MergedCorpus of an entry
// may be maintained on another thread (controller/merged_corpus.h); entries are never closed while
// the controller runs.
#ifndef POLLEN_CONTROLLER_CAMPAIGN_STORES_H_
#define POLLEN_CONTROLLER_CAMPAIGN_STORES_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "base/status.h"
#include "controller/crash_triage.h"
#include "controller/merged_corpus.h"
#include "controller/pushed_corpus.h"
#include "controller/registry_db.h"
#include "controller/registry_records.h"

namespace pollen::controller {

struct CampaignStore {
  std::string campaign;
  std::string build_id;
  std::unique_ptr<MergedCorpus> corpus;  // owns the CorpusStore; declared first: outlives triage
  std::unique_ptr<CrashTriage> triage;
};

class CampaignStores {
 public:
  // `campaigns_dir`: DATA/campaigns. `db` must outlive this.
  CampaignStores(std::string campaigns_dir, RegistryDb* db)
      : dir_(std::move(campaigns_dir)), db_(db) {}

  // The store of `campaign`'s build `build_id`, opened (or created) if needed. Errors: those
  // of opening the store, naming its path.
  Result<CampaignStore*> Get(const CampaignRecord& campaign, const std::string& build_id);

  // The store if it is open, else null.
  CampaignStore* FindOpen(const std::string& campaign, const std::string& build_id) const;

  // Calls fn for every open store.
  void ForEachOpen(const std::function<void(CampaignStore&)>& fn);

  // The inputs pushed to `campaign` (controller/pushed_corpus.h), in
  // DATA/campaigns/<name>/_pushed/ (a name no build id can take: build ids start with a
  // letter or digit), opened if needed. With create = false, null when nothing was ever
  // pushed to the campaign. Errors: those of opening the store, naming its path.
  Result<PushedCorpus*> Pushed(const CampaignRecord& campaign, bool create);

  // Where the store of a campaign build lives.
  std::string PathOf(const std::string& campaign, const std::string& build_id) const {
    return dir_ + "/" + campaign + "/" + build_id;
  }

 private:
  const std::string dir_;
  RegistryDb* db_;
  std::map<std::pair<std::string, std::string>, std::unique_ptr<CampaignStore>> open_;
  std::map<std::string, std::unique_ptr<PushedCorpus>, std::less<>> pushed_;
};

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_CAMPAIGN_STORES_H_
