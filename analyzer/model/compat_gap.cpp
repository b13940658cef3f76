// A compat gap's registry key and id.
#include "analyzer/model/compat_gap.h"

#include "base/text.h"

namespace forkscope::analyzer {
namespace {

// "at::Tensor::record_stream" -> "record_stream"; ".foo<int>()" -> "foo".
std::string LastName(std::string s) {
  if (auto paren = s.find('('); paren != std::string::npos) s.resize(paren);
  if (auto angle = s.find('<'); angle != std::string::npos) s.resize(angle);
  while (!s.empty() && (s.back() == ' ' || s.back() == ':' || s.back() == '.')) s.pop_back();
  const size_t cut = s.find_last_of(":.");
  return cut == std::string::npos ? s : s.substr(cut + 1);
}

}  // namespace

std::string CompatGapApiKey(const CompatGap& gap) {
  std::string key = LastName(gap.api);
  if (key.empty()) key = LastName(gap.bridge);
  return key.empty() ? "unknown" : key;
}

std::string CompatGapId(const std::string& fork, const std::string& path, const std::string& api_key) {
  return "g" + base::Fnv1a64Hex(fork + '\n' + path + '\n' + api_key).substr(0, 12);
}

}  // namespace forkscope::analyzer
