// crash/<campaign>/<signature> (controller/client/record_names.h): one crash's smallest reproducer
// and its report, as the records "input" and "report", for `pollen crashes pull` and
// `pollen repro --campaign`: a reproducer of any size up to the stream's record limit,
// where a `getCrash` reply must fit in one message.
//
// Thread safety: none.
#ifndef POLLEN_CONTROLLER_CLIENT_CRASH_SOURCE_H_
#define POLLEN_CONTROLLER_CLIENT_CRASH_SOURCE_H_

#include <string>
#include <utility>
#include <vector>

#include "transfer/stream_sender.h"

namespace pollen::controller {

class CrashSource : public transfer::RecordSource {
 public:
  // The records after `resume_after` ("" for both).
  CrashSource(std::vector<uint8_t> input, std::string report, const std::string& resume_after)
      : input_(std::move(input)),
        report_(std::move(report)),
        next_(resume_after < "input"    ? 0
              : resume_after < "report" ? 1
                                        : 2) {}

  Result<bool> Next(std::string* name, std::string* data) override {
    if (next_ == 0) {
      *name = "input";
      data->assign(input_.begin(), input_.end());
    } else if (next_ == 1) {
      *name = "report";
      *data = report_;
    } else {
      return false;
    }
    next_++;
    return true;
  }

 private:
  std::vector<uint8_t> input_;
  std::string report_;
  int next_;
};

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_CLIENT_CRASH_SOURCE_H_
