// libFuzzer target for analyzer/trace_diff.h: the input is two JSONL traces separated by a line "---";
// each must parse or be refused with a message, and two parsed traces must diff and encode as JSON
// (valid UTF-8, no exception) whatever they hold.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "analyzer/trace/trace_diff.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  size_t split = text.find("\n---\n");
  std::string a = split == std::string::npos ? text : text.substr(0, split);
  std::string b = split == std::string::npos ? text : text.substr(split + 5);
  auto ref = forkscope::analyzer::ParseTrace(a, "a");
  auto mig = forkscope::analyzer::ParseTrace(b, "b");
  if (!ref.ok() && ref.status().message().empty()) std::abort();
  if (!mig.ok() && mig.status().message().empty()) std::abort();
  if (!ref.ok() || !mig.ok()) return 0;
  auto diff = forkscope::analyzer::DiffTraces(*ref, *mig);
  if (diff.divergence) forkscope::analyzer::AttachLayer(*diff.divergence, nullptr, nullptr, "/w");
  std::string json = forkscope::analyzer::TraceDiffToJson(diff).dump();
  std::string out = forkscope::analyzer::RenderTraceDiffText(diff);
  if (json.empty() || out.empty()) std::abort();
  return 0;
}
