#include <array>
#include <utility>

#include "analyzer/integration/integrator.h"

namespace forkscope::analyzer::integration {
namespace {

constexpr std::array<std::pair<PinState, const char*>, 7> kNames = {{
    {PinState::kCurrent, "current"},
    {PinState::kBehind, "behind"},
    {PinState::kOffBranch, "off-branch"},
    {PinState::kOrphaned, "orphaned"},
    {PinState::kUnmatched, "unmatched"},
    {PinState::kUnreachable, "unreachable"},
    {PinState::kNotIntegrated, "not-integrated"},
}};

}  // namespace

const char* PinStateName(PinState state) {
  for (const auto& [s, name] : kNames)
    if (s == state) return name;
  return "unmatched";
}

std::optional<PinState> PinStateFromName(const std::string& name) {
  for (const auto& [s, n] : kNames)
    if (name == n) return s;
  return std::nullopt;
}

}  // namespace forkscope::analyzer::integration
