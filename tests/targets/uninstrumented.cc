// Test target: linked with the Pollen runtime but compiled without SanitizerCoverage.
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return 0; }
