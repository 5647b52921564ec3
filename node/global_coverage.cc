#include "node/global_coverage.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "engine/shm_layout.h"

namespace pollen::node {

Result<std::unique_ptr<GlobalCoverage>> GlobalCoverage::Create(uint64_t capacity) {
  std::unique_ptr<GlobalCoverage> g(new GlobalCoverage());
  g->fd_ = memfd_create("pollen-coverage", MFD_CLOEXEC);
  if (g->fd_ < 0) return Status::Error(std::string("memfd_create: ") + std::strerror(errno));
  g->size_ = engine::kGlobalCoverageDataOffset + capacity;
  if (ftruncate(g->fd_, static_cast<off_t>(g->size_)) != 0) {
    return Status::Error(std::string("ftruncate of the coverage map: ") + std::strerror(errno));
  }
  g->base_ = mmap(nullptr, g->size_, PROT_READ | PROT_WRITE, MAP_SHARED, g->fd_, 0);
  if (g->base_ == MAP_FAILED) {
    g->base_ = nullptr;
    return Status::Error(std::string("mmap of the coverage map: ") + std::strerror(errno));
  }
  auto* header = static_cast<engine::GlobalCoverageHeader*>(g->base_);
  header->magic = engine::GlobalCoverageHeader::kMagic;
  header->capacity = capacity;
  g->capacity_ = capacity;
  return g;
}

GlobalCoverage::~GlobalCoverage() {
  map_.reset();
  if (base_) munmap(base_, size_);
  if (fd_ >= 0) close(fd_);
}

void GlobalCoverage::SetNumCounters(uint64_t n) {
  num_counters_ = n;
  static_cast<engine::GlobalCoverageHeader*>(base_)->num_counters = n;
  // A view over the real counters only: the rest of the memfd is never touched.
  map_ = std::make_unique<engine::CoverageMap>(
      static_cast<uint8_t*>(base_) + engine::kGlobalCoverageDataOffset, n);
}

std::vector<uint32_t> GlobalCoverage::NewFeatures(const uint32_t* features, size_t n) const {
  return map_ ? map_->NewFeatures(features, n) : std::vector<uint32_t>();
}

size_t GlobalCoverage::CountNew(const uint32_t* features, size_t n) const {
  return map_ ? map_->CountNew(features, n) : 0;
}

size_t GlobalCoverage::Add(const uint32_t* features, size_t n) {
  return map_ ? map_->Add(features, n) : 0;
}

}  // namespace pollen::node
