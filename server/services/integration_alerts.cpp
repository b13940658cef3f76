// The integration alert rules (alerts.h): how an integrator's pins of a fork stand.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "base/message_code.h"
#include "server/services/alerts.h"

namespace forkscope::server {
namespace {

namespace ai = analyzer::integration;
using nlohmann::json;
using storage::AlertCondition;

std::string Short(const std::string& sha) { return sha.substr(0, 12); }

std::string Names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

void SetCode(AlertCondition& c, const std::string& code, const json& params) {
  c.message_code = code;
  c.message_params = base::MessageParamsText(params);
}

}  // namespace

std::vector<AlertCondition> IntegrationConditions(const AlertRulesConfig& rules, const std::string& fork,
                                                  const std::string& integrator, const ai::IntegratorReport& report) {
  std::vector<std::string> orphaned, lacking;
  json orphaned_list = json::array(), lacking_list = json::array();
  int64_t furthest = 0;
  std::string furthest_lib;
  for (const auto& lib : report.libraries) {
    if (lib.fork != fork) continue;
    if (lib.state == ai::PinState::kOrphaned) {
      orphaned.push_back(lib.name + " " + Short(lib.pinned_sha));
      orphaned_list.push_back({{"library", lib.name}, {"pin", Short(lib.pinned_sha)}});
    }
    if (lib.state == ai::PinState::kBehind && lib.behind && *lib.behind > furthest) {
      furthest = *lib.behind;
      furthest_lib = lib.name;
    }
    if (!lib.scope_lacks.empty() && lib.steps.loader) {
      lacking.push_back(lib.name + " (lacks " + Names(lib.scope_lacks) + ")");
      lacking_list.push_back({{"library", lib.name}, {"lacks", lib.scope_lacks}});
    }
  }
  const auto n_orphaned = static_cast<int64_t>(orphaned.size());
  AlertCondition o{
      "integration-pin-orphaned", rules.integration_pin_orphaned && n_orphaned > 0, n_orphaned, 0, "critical", ""};
  o.message = integrator + " pins " + fork +
              " at commits on no branch or tag of the fork (force-pushed away): " + Names(orphaned) +
              ". The next fresh checkout of " + integrator +
              " fails at `git submodule update`: push the commit back (a tag keeps it), or bump the pin.";
  SetCode(o, "alert.integration-pin-orphaned",
          {{"fork", fork}, {"integrator", integrator}, {"count", n_orphaned}, {"pins", orphaned_list}});

  const int threshold = rules.integration_pin_behind;
  AlertCondition b{"integration-pin-behind",
                   threshold > 0 && furthest > threshold,
                   furthest,
                   threshold,
                   furthest > 2 * static_cast<int64_t>(threshold) ? "warning" : "info",
                   "",
                   std::max<int64_t>(threshold, 1)};
  b.message = integrator + " ships " + fork + "'s " + furthest_lib + " " + std::to_string(furthest) +
              " commits behind the fork's migration branch (alert above " + std::to_string(threshold) +
              ", integration_pin_behind): bump the pin.";
  SetCode(b, "alert.integration-pin-behind",
          {{"fork", fork},
           {"integrator", integrator},
           {"library", furthest_lib},
           {"behind", furthest},
           {"threshold", threshold}});

  const auto n_lacking = static_cast<int64_t>(lacking.size());
  AlertCondition s{
      "integration-scope-mismatch", rules.integration_scope_mismatch && n_lacking > 0, n_lacking, 0, "warning", ""};
  s.message = integrator + " loads " + fork +
              " under a compat scope that lacks packages importing torch while it "
              "loads: " +
              Names(lacking) + ". Add them to the loader's use_compat_guard scope.";
  SetCode(s, "alert.integration-scope-mismatch",
          {{"fork", fork}, {"integrator", integrator}, {"count", n_lacking}, {"libraries", lacking_list}});
  return {o, b, s};
}

Status AlertEngine::OnIntegration(storage::Store& store, const std::string& integrator,
                                  const ai::IntegratorReport& report) {
  std::vector<std::string> forks;
  for (const auto& lib : report.libraries)
    if (!lib.fork.empty() && std::find(forks.begin(), forks.end(), lib.fork) == forks.end()) forks.push_back(lib.fork);
  Status first;
  for (const auto& fork : forks) {
    auto record = store.GetFork(fork);
    if (!record.ok()) continue;  // deleted meanwhile
    for (const AlertCondition& c : IntegrationConditions(RulesFor(fork), fork, integrator, report)) {
      Status st = Apply(store, record->id, c);
      if (!st.ok() && first.ok()) first = st;
    }
  }
  return first;
}

}  // namespace forkscope::server
