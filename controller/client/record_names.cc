#include "controller/client/record_names.h"

#include <cstdio>

#include "base/hex.h"
#include "controller/client/safe_name.h"
#include "net/feature_codec.h"

namespace pollen::controller {
namespace {

constexpr size_t kSeqDigits = 16;
constexpr std::string_view kCorpusPrefix = "corpus/";
constexpr std::string_view kEntriesPrefix = "entries/";
constexpr std::string_view kPushedPrefix = "pushed/";
constexpr std::string_view kCrashPrefix = "crash/";
constexpr std::string_view kReportsPrefix = "reports/";
constexpr std::string_view kBuildPrefix = "build/";

std::string Hex16(uint64_t n) {
  char text[kSeqDigits + 1];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(n));
  return text;
}

Status BadResource(std::string_view resource, const std::string& why) {
  return Status::Error("unknown stream resource '" + std::string(resource.substr(0, 200)) + "' (" +
                       why +
                       "): the controller streams corpus/CAMPAIGN[/BUILD], "
                       "entries/CAMPAIGN[/BUILD], pushed/CAMPAIGN, crash/CAMPAIGN/SIGNATURE and "
                       "reports/CAMPAIGN[/NIGHT|/latest] and build/CAMPAIGN");
}

}  // namespace

std::string CorpusResource(const std::string& campaign, const std::string& build_id) {
  std::string resource = std::string(kCorpusPrefix) + campaign;
  if (!build_id.empty()) resource += "/" + build_id;
  return resource;
}

std::string EntriesResource(const std::string& campaign, const std::string& build_id) {
  std::string resource = std::string(kEntriesPrefix) + campaign;
  if (!build_id.empty()) resource += "/" + build_id;
  return resource;
}

std::string PushedResource(const std::string& campaign) {
  return std::string(kPushedPrefix) + campaign;
}

std::string CrashResource(const std::string& campaign, const std::string& signature) {
  return std::string(kCrashPrefix) + campaign + "/" + signature;
}

std::string ReportsResource(const std::string& campaign, const std::string& night) {
  std::string resource = std::string(kReportsPrefix) + campaign;
  if (!night.empty()) resource += "/" + night;
  return resource;
}

std::string BuildResource(const std::string& campaign) {
  return std::string(kBuildPrefix) + campaign;
}

Result<ParsedResource> ParseResource(std::string_view resource) {
  ParsedResource parsed;
  std::string_view rest;
  if (resource.substr(0, kCorpusPrefix.size()) == kCorpusPrefix) {
    parsed.kind = ParsedResource::Kind::kCorpus;
    rest = resource.substr(kCorpusPrefix.size());
  } else if (resource.substr(0, kEntriesPrefix.size()) == kEntriesPrefix) {
    parsed.kind = ParsedResource::Kind::kEntries;
    rest = resource.substr(kEntriesPrefix.size());
  } else if (resource.substr(0, kPushedPrefix.size()) == kPushedPrefix) {
    parsed.kind = ParsedResource::Kind::kPushed;
    rest = resource.substr(kPushedPrefix.size());
  } else if (resource.substr(0, kCrashPrefix.size()) == kCrashPrefix) {
    parsed.kind = ParsedResource::Kind::kCrash;
    rest = resource.substr(kCrashPrefix.size());
  } else if (resource.substr(0, kReportsPrefix.size()) == kReportsPrefix) {
    parsed.kind = ParsedResource::Kind::kReports;
    rest = resource.substr(kReportsPrefix.size());
  } else if (resource.substr(0, kBuildPrefix.size()) == kBuildPrefix) {
    parsed.kind = ParsedResource::Kind::kBuild;
    rest = resource.substr(kBuildPrefix.size());
  } else {
    return BadResource(resource, "no such kind");
  }
  const size_t slash = rest.find('/');
  const std::string_view campaign = rest.substr(0, slash);
  if (Status s = CheckSafeName("campaign name", campaign); !s.ok()) {
    return BadResource(resource, s.message());
  }
  parsed.campaign.name = std::string(campaign);
  if (slash != std::string_view::npos) {
    const std::string_view build = rest.substr(slash + 1);
    if (parsed.kind == ParsedResource::Kind::kPushed) {
      return BadResource(resource, "pushed inputs belong to a campaign, not to a build");
    }
    if (parsed.kind == ParsedResource::Kind::kBuild) {
      return BadResource(resource, "build/<campaign> is the campaign's assigned build");
    }
    if (parsed.kind == ParsedResource::Kind::kReports) {
      if (build != "latest") {
        if (Status s = CheckNightName(build); !s.ok()) return BadResource(resource, s.message());
      }
      parsed.night = std::string(build);
      return parsed;
    }
    if (parsed.kind == ParsedResource::Kind::kCrash) {
      if (Status s = CheckSafeName("crash signature", build); !s.ok()) {
        return BadResource(resource, s.message());
      }
      parsed.signature = std::string(build);
      return parsed;
    }
    if (Status s = CheckSafeName("build id", build); !s.ok())
      return BadResource(resource, s.message());
    parsed.campaign.build_id = std::string(build);
  }
  if (parsed.kind == ParsedResource::Kind::kCrash) {
    return BadResource(resource, "a crash is named by its signature");
  }
  return parsed;
}

std::string PushedRecordName(uint64_t seq, const base::Digest& hash) {
  return Hex16(seq) + "-" + base::DigestHex(hash);
}

bool ParsePushedRecordName(std::string_view name, uint64_t* seq, base::Digest* hash) {
  if (name.size() != kSeqDigits + 1 + 2 * sizeof(base::Digest) || name[kSeqDigits] != '-')
    return false;
  uint64_t value = 0;
  for (size_t i = 0; i < kSeqDigits; i++) {
    const int digit = base::HexDigitValue(name[i]);
    if (digit < 0 || (name[i] >= 'A' && name[i] <= 'F')) return false;
    value = value * 16 + static_cast<uint64_t>(digit);
  }
  const std::optional<base::Digest> parsed = base::ParseDigestHex(name.substr(kSeqDigits + 1));
  if (!parsed) return false;
  *hash = *parsed;
  *seq = value;
  return true;
}

std::string PushedCursorAfter(uint64_t seq) {
  // '.' sorts after '-': "<seq>." follows every "<seq>-<hash>" and precedes "<seq + 1>-...".
  return seq == 0 ? std::string() : Hex16(seq) + ".";
}

void EncodeEntryRecord(const std::vector<uint32_t>& features, std::string_view input,
                       std::string* out) {
  const std::vector<uint8_t> encoded = net::EncodeFeatures(features);
  const auto count = static_cast<uint32_t>(encoded.size());
  out->clear();
  out->reserve(4 + encoded.size() + input.size());
  for (int i = 0; i < 4; i++) out->push_back(static_cast<char>(count >> (8 * i)));
  out->append(reinterpret_cast<const char*>(encoded.data()), encoded.size());
  out->append(input);
}

Status DecodeEntryRecord(std::string_view data, size_t max_features,
                         std::vector<uint32_t>* features, std::string_view* input) {
  if (data.size() < 4) return Status::Error("an entry record has at least 4 bytes");
  uint32_t count = 0;
  for (int i = 0; i < 4; i++) count |= uint32_t{static_cast<uint8_t>(data[i])} << (8 * i);
  if (count > data.size() - 4) {
    return Status::Error("an entry record's features run past its end");
  }
  if (!net::DecodeFeatures(reinterpret_cast<const uint8_t*>(data.data()) + 4, count, max_features,
                           features)) {
    return Status::Error("an entry record's features are not a valid feature list");
  }
  *input = data.substr(4 + count);
  return Status::Ok();
}

}  // namespace pollen::controller
