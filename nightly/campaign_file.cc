#include "nightly/campaign_file.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <filesystem>
#include <limits>

#include "controller/client/safe_name.h"
#include "nightly/webhook.h"
#include "node/text_file.h"

namespace pollen::nightly {
namespace {

// Errors as "FILE:LINE: FIELD: what".
class FieldErrors {
 public:
  explicit FieldErrors(std::string path) : path_(std::move(path)) {}

  Status At(const YAML::Node& node, const std::string& field, const std::string& what) const {
    std::string where = path_;
    if (node.Mark().line >= 0) where += ":" + std::to_string(node.Mark().line + 1);
    return Status::Error(where + ": " + field + ": " + what);
  }

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

Result<std::string> Scalar(const FieldErrors& errors, const YAML::Node& node,
                           const std::string& field) {
  if (!node.IsScalar()) return errors.At(node, field, "must be a single value");
  return node.Scalar();
}

Result<uint64_t> Number(const FieldErrors& errors, const YAML::Node& node, const std::string& field,
                        uint64_t min, uint64_t max) {
  Result<std::string> text = Scalar(errors, node, field);
  if (!text.ok()) return text.status();
  uint64_t value = 0;
  const char* end = text->data() + text->size();
  auto [ptr, ec] = std::from_chars(text->data(), end, value);
  if (ec != std::errc() || ptr != end || text->empty()) {
    return errors.At(node, field, "'" + *text + "' is not a whole number");
  }
  if (value < min || value > max) {
    return errors.At(node, field,
                     std::to_string(value) + " is out of range [" + std::to_string(min) + ", " +
                         std::to_string(max) + "]");
  }
  return value;
}

// A path relative to the campaign file's directory.
std::string ResolvePath(const std::string& file, const std::string& value) {
  std::filesystem::path p(value);
  if (p.is_absolute()) return value;
  return (std::filesystem::path(file).parent_path() / p).lexically_normal().string();
}

Result<std::string> PathField(const FieldErrors& errors, const YAML::Node& node,
                              const std::string& field) {
  Result<std::string> text = Scalar(errors, node, field);
  if (!text.ok()) return text.status();
  if (text->empty()) return errors.At(node, field, "is empty");
  return ResolvePath(errors.path(), *text);
}

// Checks that every key of `map` is one of `known`.
Status OnlyKnownKeys(const FieldErrors& errors, const YAML::Node& map, const std::string& prefix,
                     std::initializer_list<const char*> known) {
  for (const auto& item : map) {
    const std::string key = item.first.Scalar();
    bool found = false;
    std::string list;
    for (const char* k : known) {
      found |= key == k;
      list += (list.empty() ? "" : ", ") + std::string(k);
    }
    if (!found) {
      return errors.At(item.first, prefix + key, "unknown field (known here: " + list + ")");
    }
  }
  return Status::Ok();
}

Status ParseBuilds(const FieldErrors& errors, const YAML::Node& builds, NightlyCampaign* out) {
  if (!builds.IsMap()) {
    return errors.At(builds, "builds", "must be a map (fuzz:, coverage:, sanitizers:)");
  }
  Status known =
      OnlyKnownKeys(errors, builds, "builds.", {"image", "fuzz", "coverage", "sanitizers"});
  if (!known.ok()) return known;
  if (builds["image"]) {
    Result<std::string> image = Scalar(errors, builds["image"], "builds.image");
    if (!image.ok()) return image.status();
    if (image->empty() || image->find_first_of(" \t\n") != std::string::npos ||
        (*image)[0] == '-') {
      return errors.At(builds["image"], "builds.image",
                       "an image reference, e.g. registry.example.com/json-fuzz:2026-11-25");
    }
    out->image = *image;
  }
  // Paths inside the image are absolute; paths on this machine are relative to the file.
  auto build_path = [&](const YAML::Node& node, const std::string& field) -> Result<std::string> {
    if (out->image.empty()) return PathField(errors, node, field);
    Result<std::string> text = Scalar(errors, node, field);
    if (!text.ok()) return text.status();
    if (text->empty() || (*text)[0] != '/') {
      return errors.At(node, field, "a path inside builds.image is absolute, e.g. /target/fuzzer");
    }
    return *text;
  };
  if (!builds["fuzz"]) return errors.At(builds, "builds.fuzz", "is required (the fuzzing build)");
  Result<std::string> fuzz = build_path(builds["fuzz"], "builds.fuzz");
  if (!fuzz.ok()) return fuzz.status();
  out->fuzz_build = *fuzz;
  if (builds["coverage"]) {
    Result<std::string> coverage = build_path(builds["coverage"], "builds.coverage");
    if (!coverage.ok()) return coverage.status();
    out->coverage_build = *coverage;
  }
  if (builds["sanitizers"]) {
    const YAML::Node& sanitizers = builds["sanitizers"];
    if (!sanitizers.IsMap() || sanitizers.size() == 0) {
      return errors.At(sanitizers, "builds.sanitizers",
                       "must be a map of names to builds, e.g. {ubsan: out/fuzzer-ubsan}");
    }
    for (const auto& item : sanitizers) {
      const std::string name = item.first.Scalar();
      const std::string field = "builds.sanitizers." + name;
      if (!IsSanitizerName(name)) {
        return errors.At(item.first, field,
                         "a sanitizer build's name is 1 to 16 of [a-z0-9] (it prefixes its "
                         "crashes' signatures)");
      }
      Result<std::string> path = build_path(item.second, field);
      if (!path.ok()) return path.status();
      out->sanitizer_builds.emplace_back(name, *path);
    }
  }
  return Status::Ok();
}

Status ParseOptions(const FieldErrors& errors, const YAML::Node& options, NightlyCampaign* out) {
  if (!options.IsMap()) return errors.At(options, "options", "must be a map");
  Status known = OnlyKnownKeys(errors, options, "options.", {"max_len", "timeout", "rss_limit_mb"});
  if (!known.ok()) return known;
  if (options["max_len"]) {
    Result<uint64_t> v = Number(errors, options["max_len"], "options.max_len", 1, 64u << 20);
    if (!v.ok()) return v.status();
    out->max_len = static_cast<uint32_t>(*v);
  }
  if (options["timeout"]) {
    Result<uint64_t> v = Number(errors, options["timeout"], "options.timeout", 1, 3600);
    if (!v.ok()) return v.status();
    out->timeout_s = static_cast<uint32_t>(*v);
  }
  if (options["rss_limit_mb"]) {
    Result<uint64_t> v =
        Number(errors, options["rss_limit_mb"], "options.rss_limit_mb", 0, 1 << 20);
    if (!v.ok()) return v.status();
    out->rss_limit_mb = static_cast<uint32_t>(*v);
  }
  return Status::Ok();
}

Status ParseNotify(const FieldErrors& errors, const YAML::Node& notify, NightlyCampaign* out) {
  if (!notify.IsMap())
    return errors.At(notify, "notify", "must be a map (webhook:, timeout:, attempts:)");
  Status known = OnlyKnownKeys(errors, notify, "notify.", {"webhook", "timeout", "attempts"});
  if (!known.ok()) return known;
  if (!notify["webhook"]) return errors.At(notify, "notify.webhook", "is required (a URL)");
  Result<std::string> url = Scalar(errors, notify["webhook"], "notify.webhook");
  if (!url.ok()) return url.status();
  Status valid = CheckWebhookUrl(*url);
  if (!valid.ok()) return errors.At(notify["webhook"], "notify.webhook", valid.message());
  out->webhook = *url;
  if (notify["timeout"]) {
    Result<uint64_t> v = Number(errors, notify["timeout"], "notify.timeout", 1, 300);
    if (!v.ok()) return v.status();
    out->webhook_timeout_s = static_cast<uint32_t>(*v);
  }
  if (notify["attempts"]) {
    Result<uint64_t> v = Number(errors, notify["attempts"], "notify.attempts", 1, 10);
    if (!v.ok()) return v.status();
    out->webhook_attempts = static_cast<uint32_t>(*v);
  }
  return Status::Ok();
}

Status ParseSeeds(const FieldErrors& errors, const YAML::Node& seeds, NightlyCampaign* out) {
  if (seeds.IsScalar()) {
    Result<std::string> one = PathField(errors, seeds, "seeds");
    if (!one.ok()) return one.status();
    out->seeds.push_back(*one);
    return Status::Ok();
  }
  if (!seeds.IsSequence())
    return errors.At(seeds, "seeds", "must be a directory or a list of them");
  for (size_t i = 0; i < seeds.size(); i++) {
    Result<std::string> dir = PathField(errors, seeds[i], "seeds[" + std::to_string(i) + "]");
    if (!dir.ok()) return dir.status();
    out->seeds.push_back(*dir);
  }
  return Status::Ok();
}

Result<NightlyCampaign> ParseDocument(const FieldErrors& errors, const YAML::Node& root) {
  if (!root.IsMap()) {
    return Status::Error(errors.path() +
                         ": a campaign file is a YAML map (campaign:, builds:, ...)");
  }
  Status known = OnlyKnownKeys(errors, root, "",
                               {"campaign", "target", "builds", "seeds", "dictionary", "options",
                                "budget", "nodes", "workers", "notify"});
  if (!known.ok()) return known;
  NightlyCampaign out;
  if (!root["campaign"]) return errors.At(root, "campaign", "is required (the campaign's name)");
  Result<std::string> name = Scalar(errors, root["campaign"], "campaign");
  if (!name.ok()) return name.status();
  Status safe = controller::CheckSafeName("campaign name", *name);
  if (!safe.ok()) return errors.At(root["campaign"], "campaign", safe.message());
  out.campaign = *name;

  if (root["target"]) {
    Result<std::string> target = Scalar(errors, root["target"], "target");
    if (!target.ok()) return target.status();
    Status ok = controller::CheckSafeName("target name", *target);
    if (!ok.ok()) return errors.At(root["target"], "target", ok.message());
    out.target = *target;
  }

  if (!root["builds"]) return errors.At(root, "builds", "is required (builds: {fuzz: PATH})");
  Status builds = ParseBuilds(errors, root["builds"], &out);
  if (!builds.ok()) return builds;

  if (!root["budget"])
    return errors.At(root, "budget", "is required (fuzzing time per night, e.g. 30m)");
  Result<std::string> budget_text = Scalar(errors, root["budget"], "budget");
  if (!budget_text.ok()) return budget_text.status();
  Result<uint64_t> budget = ParseDuration(*budget_text);
  if (!budget.ok()) return errors.At(root["budget"], "budget", budget.status().message());
  out.budget_s = *budget;

  if (root["seeds"]) {
    Status seeds = ParseSeeds(errors, root["seeds"], &out);
    if (!seeds.ok()) return seeds;
  }
  if (root["dictionary"]) {
    Result<std::string> dict = PathField(errors, root["dictionary"], "dictionary");
    if (!dict.ok()) return dict.status();
    out.dictionary = *dict;
  }
  if (root["options"]) {
    Status options = ParseOptions(errors, root["options"], &out);
    if (!options.ok()) return options;
  }
  if (root["nodes"] && root["nodes"].IsScalar() && root["nodes"].Scalar() == "cluster") {
    out.cluster = true;
  } else if (root["nodes"]) {
    Result<uint64_t> nodes = Number(errors, root["nodes"], "nodes", 1, 256);
    if (!nodes.ok()) {
      return Status::Error(nodes.status().message() +
                           " (a number of local nodes, or `cluster`: the nodes that follow the "
                           "campaign's builds)");
    }
    out.nodes = static_cast<uint32_t>(*nodes);
  }
  if (root["notify"]) {
    Status notify = ParseNotify(errors, root["notify"], &out);
    if (!notify.ok()) return notify;
  }
  if (root["workers"]) {
    Result<uint64_t> workers = Number(errors, root["workers"], "workers", 0, 1024);
    if (!workers.ok()) return workers.status();
    out.workers = static_cast<uint32_t>(*workers);
  }
  return out;
}

}  // namespace

Result<uint64_t> ParseDuration(const std::string& text) {
  const std::string accepted = "'" + text + "' is not a duration (e.g. 90s, 30m, 2h, 1h30m or 600)";
  if (text.empty()) return Status::Error(accepted);
  uint64_t total = 0;
  size_t i = 0;
  bool unit_seen = false;
  while (i < text.size()) {
    uint64_t value = 0;
    auto [ptr, ec] = std::from_chars(text.data() + i, text.data() + text.size(), value);
    if (ec != std::errc()) return Status::Error(accepted);
    i = ptr - text.data();
    uint64_t unit = 1;
    if (i < text.size()) {
      switch (text[i]) {
        case 's':
          unit = 1;
          break;
        case 'm':
          unit = 60;
          break;
        case 'h':
          unit = 3600;
          break;
        default:
          return Status::Error(accepted);
      }
      i++;
      unit_seen = true;
    } else if (unit_seen) {
      return Status::Error(accepted);  // "1h30": a number without its unit after a unit
    }
    if (value > (uint64_t{1} << 40) / unit) return Status::Error("'" + text + "' is too long");
    total += value * unit;
  }
  if (total == 0) return Status::Error("'" + text + "': the budget must be at least 1 s");
  if (total > 7 * 24 * 3600) return Status::Error("'" + text + "' is longer than a week");
  return total;
}

bool IsSanitizerName(const std::string& name) {
  if (name.empty() || name.size() > 16) return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) return false;
  }
  return true;
}

Result<NightlyCampaign> ParseCampaignFile(const std::string& text, const std::string& path) {
  FieldErrors errors(path);
  // yaml-cpp reports bad documents and wrong conversions by exceptions: this is
  // their one boundary.
  try {
    YAML::Node root = YAML::Load(text);
    return ParseDocument(errors, root);
  } catch (const YAML::Exception& e) {
    std::string where = path;
    if (e.mark.line >= 0) where += ":" + std::to_string(e.mark.line + 1);
    return Status::Error(where + ": not valid YAML: " + e.msg);
  }
}

std::string TargetName(const NightlyCampaign& campaign) {
  if (!campaign.target.empty()) return campaign.target;
  return std::filesystem::path(campaign.fuzz_build).filename().string();
}

Result<NightlyCampaign> LoadCampaignFile(const std::string& path) {
  Result<std::string> text = node::ReadTextFile(path);
  if (!text.ok())
    return Status::Error("cannot read campaign file " + path + " (" + text.status().message() +
                         ")");
  if (text->size() > (1 << 20)) return Status::Error(path + ": a campaign file is at most 1 MiB");
  return ParseCampaignFile(*text, path);
}

}  // namespace pollen::nightly
