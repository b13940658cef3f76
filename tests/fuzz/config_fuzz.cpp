// libFuzzer target for server/config.h: any bytes given as a TOML config must parse or be refused
// with a message, never crash or throw; a parsed config goes through ValidateConfig too.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "server/config/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto config = forkscope::server::ParseConfig(text, "fuzz");
  if (!config.ok()) {
    if (config.status().message().empty()) std::abort();  // every refusal must say why
    return 0;
  }
  forkscope::Status status = forkscope::server::ValidateConfig(*config);
  if (!status.ok() && status.message().empty()) std::abort();
  return 0;
}
