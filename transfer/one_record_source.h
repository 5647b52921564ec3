// A record source of exactly one record, given whole (a pushed build, one file).
//
// Thread safety: none.
#ifndef POLLEN_TRANSFER_ONE_RECORD_SOURCE_H_
#define POLLEN_TRANSFER_ONE_RECORD_SOURCE_H_

#include <string>
#include <utility>

#include "transfer/stream_sender.h"

namespace pollen::transfer {

class OneRecordSource : public RecordSource {
 public:
  OneRecordSource(std::string name, std::string data)
      : name_(std::move(name)), data_(std::move(data)) {}

  Result<bool> Next(std::string* name, std::string* data) override {
    if (done_) return false;
    done_ = true;
    *name = std::move(name_);
    *data = std::move(data_);
    return true;
  }

 private:
  std::string name_;
  std::string data_;
  bool done_ = false;
};

}  // namespace pollen::transfer

#endif  // POLLEN_TRANSFER_ONE_RECORD_SOURCE_H_
