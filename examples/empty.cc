// Does nothing: measures the engine's own cost per execution (bench/).
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return 0; }
