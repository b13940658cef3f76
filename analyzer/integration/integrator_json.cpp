#include "analyzer/integration/integrator_json.h"

namespace forkscope::analyzer::integration {
namespace {

using nlohmann::json;

json OrNull(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }
json OrNull(const std::optional<int>& v) { return v ? json(*v) : json(nullptr); }

std::string Text(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

std::optional<int> Count(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int>();
}

std::vector<std::string> Strings(const json& j, const char* key) {
  std::vector<std::string> out;
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const auto& s : *it)
    if (s.is_string()) out.push_back(s.get<std::string>());
  return out;
}

}  // namespace

json LibraryReportToJson(const LibraryReport& lib) {
  const auto& s = lib.steps;
  return json{
      {"name", lib.name},
      {"path", lib.path},
      {"url", OrNull(lib.url)},
      {"pinned_sha", OrNull(lib.pinned_sha)},
      {"fork", OrNull(lib.fork)},
      {"branch", OrNull(lib.branch)},
      {"state", analyzer::integration::PinStateName(lib.state)},
      {"behind", OrNull(lib.behind)},
      {"upstream_behind", OrNull(lib.upstream_behind)},
      {"steps",
       {{"submodule", s.submodule},
        {"get_libs", s.get_libs},
        {"submodule_check", s.submodule_check},
        {"gitignore", s.gitignore},
        {"loader", s.loader},
        {"import_test", s.import_test}}},
      {"loader", {{"guard", lib.loader.guard}, {"scope", lib.loader.scope}}},
      {"needed_scope", lib.needed_scope},
      {"missing", lib.missing},
  };
}

json IntegratorReportToJson(const IntegratorReport& report) {
  json libs = json::array();
  for (const auto& lib : report.libraries) libs.push_back(LibraryReportToJson(lib));
  return json{{"name", report.name}, {"head", OrNull(report.head)}, {"libraries", std::move(libs)}};
}

Result<IntegratorReport> IntegratorReportFromJson(std::string_view text) {
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("libraries") || !doc["libraries"].is_array())
    return InvalidArgument("not an integrator report");
  IntegratorReport r;
  r.name = Text(doc, "name");
  r.head = Text(doc, "head");
  for (const auto& j : doc["libraries"]) {
    if (!j.is_object()) return InvalidArgument("an integrator report's library is not an object");
    LibraryReport lib;
    lib.name = Text(j, "name");
    lib.path = Text(j, "path");
    lib.url = Text(j, "url");
    lib.pinned_sha = Text(j, "pinned_sha");
    lib.fork = Text(j, "fork");
    lib.branch = Text(j, "branch");
    auto state = analyzer::integration::PinStateFromName(Text(j, "state"));
    if (!state) return InvalidArgument("unknown library state '" + Text(j, "state") + "'");
    lib.state = *state;
    lib.behind = Count(j, "behind");
    lib.upstream_behind = Count(j, "upstream_behind");
    const json steps = j.value("steps", json::object());
    auto flag = [&](const char* k) { return steps.value(k, false); };
    lib.steps = {flag("submodule"), flag("get_libs"), flag("submodule_check"),
                 flag("gitignore"), flag("loader"),   flag("import_test")};
    const json loader = j.value("loader", json::object());
    lib.loader.guard = loader.value("guard", "none");
    lib.loader.scope = Strings(loader, "scope");
    lib.needed_scope = Strings(j, "needed_scope");
    lib.missing = Strings(j, "missing");
    r.libraries.push_back(std::move(lib));
  }
  return r;
}

}  // namespace forkscope::analyzer::integration
