#include "server/config/paths.h"

#include <cstdlib>
#include <filesystem>

namespace forkscope::server {

std::string DefaultDataDir() {
  if (const char* d = std::getenv("FORKSCOPE_DATA_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x) return std::string(x) + "/forkscope";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.local/share/forkscope";
  return ".forkscope";
}

std::string DatabasePath(const std::string& data_dir) {
  return (std::filesystem::path(data_dir) / "forkscope.db").string();
}

}  // namespace forkscope::server
