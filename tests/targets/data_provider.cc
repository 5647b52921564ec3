// A FuzzedDataProvider harness (the header ships with clang: fuzzer/FuzzedDataProvider.h),
// as structure-aware libFuzzer harnesses are often written: typed values taken from both
// ends of the input. The planted bug needs a port from the input's last two bytes, a flag
// from the byte before them, and a host name read as a string from the front.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider provider(data, size);
  const uint16_t port = provider.ConsumeIntegral<uint16_t>();
  const bool secure = provider.ConsumeBool();
  const std::string host = provider.ConsumeRandomLengthString(32);
  if (port == 8443 && secure && host == "fuzz.example") __builtin_trap();
  return 0;
}
