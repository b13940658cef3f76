#include "server/http/params.h"

#include <string>

namespace forkscope::server {

Result<size_t> SizeParam(const httplib::Request& req, const char* name, size_t fallback, size_t max) {
  if (!req.has_param(name)) return fallback;
  std::string v = req.get_param_value(name);
  if (v.empty() || v.size() > 15 || v.find_first_not_of("0123456789") != std::string::npos)
    return InvalidArgument(std::string("'") + name + "' must be a non-negative integer");
  size_t n = std::stoull(v);
  return n > max ? max : n;
}

}  // namespace forkscope::server
