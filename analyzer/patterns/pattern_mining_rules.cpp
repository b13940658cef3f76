// The rules file's "mining" section: MiningOptions over their defaults.
#include <nlohmann/json.hpp>

#include "analyzer/patterns/pattern_mining.h"

namespace forkscope::analyzer {
namespace {

using nlohmann::json;

Status IntIn(const json& section, const std::string& where, const char* key, int low, int high, int& out) {
  auto it = section.find(key);
  if (it == section.end()) return Status::Ok();
  if (!it->is_number_integer() || it->get<int64_t>() < low || it->get<int64_t>() > high)
    return InvalidArgument(where + key + ": expected an integer from " + std::to_string(low) + " to " +
                           std::to_string(high));
  out = it->get<int>();
  return Status::Ok();
}

bool IsIdentifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

}  // namespace

Status ParseMiningOptions(const json& section, const std::string& origin, MiningOptions& out) {
  const std::string where = origin + ": mining.";
  if (!section.is_object()) return InvalidArgument(origin + ": mining: expected an object");
  for (const auto& [key, value] : section.items()) {
    if (key.empty() || key[0] == '_' || key == "comment") continue;
    if (key != "shingle" && key != "threshold" && key != "min_tokens" && key != "max_tokens" && key != "keep")
      return InvalidArgument(where + key + ": unknown key");
  }
  FS_RETURN_IF_ERROR(IntIn(section, where, "shingle", 1, 8, out.shingle));
  FS_RETURN_IF_ERROR(IntIn(section, where, "min_tokens", 1, 1000, out.min_tokens));
  FS_RETURN_IF_ERROR(IntIn(section, where, "max_tokens", 16, 1000000, out.max_tokens));
  if (auto it = section.find("threshold"); it != section.end()) {
    if (!it->is_number() || it->get<double>() <= 0.0 || it->get<double>() > 1.0)
      return InvalidArgument(where + "threshold: expected a number in (0, 1]");
    out.threshold = it->get<double>();
  }
  if (auto it = section.find("keep"); it != section.end()) {
    if (!it->is_array()) return InvalidArgument(where + "keep: expected an array of identifiers");
    for (const auto& v : *it) {
      if (!v.is_string() || !IsIdentifier(v.get<std::string>()))
        return InvalidArgument(where + "keep: not an identifier: " + v.dump());
      out.keep.push_back(v.get<std::string>());
    }
  }
  return Status::Ok();
}

}  // namespace forkscope::analyzer
