// The campaigns the controller knows: name -> target, builds, options, stopped flag.
//
// A campaign is created by the first node that registers it, or by the first build pushed to
// it, and is never forgotten. It is for one target (a store never mixes targets:
// storage/corpus_store.h); each build id a node registers is added to its builds, and the
// newest build (the last one registered for the first time) is its current build, the one
// developers' requests mean when they name no build. An older build registering again does
// not become current. Every change is written to the registry before the call returns.
//
// Thread safety: none; the controller's service thread owns it.
#ifndef POLLEN_CONTROLLER_CAMPAIGN_REGISTRY_H_
#define POLLEN_CONTROLLER_CAMPAIGN_REGISTRY_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/status.h"
#include "controller/client/controller_message.h"
#include "controller/registry_db.h"
#include "controller/registry_records.h"

namespace pollen::controller {

class CampaignRegistry {
 public:
  // Loads every campaign recorded in `db` (which must outlive the registry). Errors: a
  // record that cannot be read, naming its key.
  static Result<std::unique_ptr<CampaignRegistry>> Load(RegistryDb* db);

  // Why `request` cannot register (kConflict: the campaign is for another target), or
  // nullopt. Names were checked by the codec.
  std::optional<ErrorReply> CheckRegistration(const RegisterRequest& request) const;

  // Records the registration: creates the campaign, adds the build (current when new),
  // takes the options. Precondition: CheckRegistration passed. Errors: storage.
  Result<const CampaignRecord*> Register(const RegisterRequest& request, int64_t now_unix_ms);

  // Records a pushed build (controller/build_store.h) as the campaign's assigned build:
  // creates the campaign (for `target`) when new and adds the build (current when new), as a
  // node's registration would. Errors: kConflict (the campaign is for another target),
  // storage (kStorage).
  std::variant<const CampaignRecord*, ErrorReply> AssignBuild(const std::string& campaign,
                                                              const std::string& target,
                                                              const std::string& build_id,
                                                              int64_t now_unix_ms);

  // The campaign, or null.
  const CampaignRecord* Find(std::string_view name) const;

  // The error for a request about campaign `name`, which does not exist: says how a
  // campaign comes to be and names those there are (at most 10), e.g. "no campaign 'png'
  // (a campaign is created by the first node that joins it or by pollen build push; this controller
  // has: json, xml)".
  std::string UnknownCampaign(std::string_view name) const;

  // The build `ref` means (its own, or the current one when empty), or the error to reply
  // with: kUnknownCampaign for an unknown campaign or build.
  std::variant<std::string, ErrorReply> ResolveBuild(const CampaignRef& ref) const;

  // Sets the stopped flag. Errors: unknown campaign, storage.
  Status SetStopped(std::string_view name, bool stopped);

  // Every campaign, by name.
  const std::map<std::string, CampaignRecord, std::less<>>& campaigns() const { return campaigns_; }

 private:
  explicit CampaignRegistry(RegistryDb* db) : db_(db) {}
  Status Save(const CampaignRecord& record);

  RegistryDb* db_;
  std::map<std::string, CampaignRecord, std::less<>> campaigns_;
};

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_CAMPAIGN_REGISTRY_H_
