// SARIF 2.1.0 for GitHub code scanning. One run; rules are listed in the order their ids first
// appear (violations first, then "compat-gap"), and each result points at its rule by index.
// partialFingerprints lets code scanning track an alert across pushes even when lines move;
// "forkscope/finding/v1" is the fingerprint a baseline (.forkscope-baseline.json) keeps. Each message
// keeps its text and also names one of its rule's messageStrings with the arguments that fill it, as
// SARIF viewers that localise or restyle messages expect; the quoted lines come from sarif_lines.cpp.
#include "analyzer/render/sarif.h"

#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "analyzer/render/sarif_internal.h"

namespace forkscope::analyzer {
namespace {

using nlohmann::json;
using sarif_internal::EscapeTemplate;
using sarif_internal::QuotedLines;

#ifdef FORKSCOPE_VERSION
constexpr const char* kToolVersion = FORKSCOPE_VERSION;
#else
constexpr const char* kToolVersion = "dev";
#endif

constexpr const char* kCompatGapRule = "compat-gap";
constexpr const char* kDocs = "https://github.com/PFCCLab/forkscope/blob/main/docs/check.md";

// What the default rules mean, for the rule list code scanning shows; unknown ids get their
// first message.
const std::map<std::string, std::string, std::less<>>& KnownRuleDescriptions() {
  static const auto* kDescriptions = new std::map<std::string, std::string, std::less<>>{
      {"formatting-only", "A hunk that only reformats upstream code"},
      {"renamed-upstream-file", "An upstream file renamed or moved by the migration"},
      {"deleted-upstream-file", "An upstream file deleted by the migration"},
      {"global-enable-compat-runtime", "A global paddle.enable_compat() in run-time code"},
      {"schema-edit", "An edit to an operator schema string"},
      {"kernel-edit", "A kernel edit without a stated reason"},
      {"deprecated-torch-proxy", "Use of the deprecated paddle.compat.enable_torch_proxy()"},
      {"compat-gap-no-removal", "A compat gap workaround that does not state when it can be removed"},
      {kCompatGapRule, "A compat gap: a torch API that Paddle lacks, bridged at one call site"},
  };
  return *kDescriptions;
}

// "formatting-only" -> "FormattingOnly", as SARIF rule names are written.
std::string RuleName(std::string_view id) {
  std::string name;
  bool upper = true;
  for (char c : id) {
    bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum) {
      upper = true;
      continue;
    }
    name.push_back(upper && c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c);
    upper = false;
  }
  return name.empty() ? "Rule" : name;
}

// FNV-1a 64 over the fields, each followed by a NUL so "ab"+"c" and "a"+"bc" differ.
std::string Fingerprint(std::initializer_list<std::string_view> fields) {
  uint64_t h = 14695981039346656037ull;
  auto mix = [&h](unsigned char c) { h = (h ^ c) * 1099511628211ull; };
  for (std::string_view f : fields) {
    for (char c : f) mix(static_cast<unsigned char>(c));
    mix(0);
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// A message as a sentence: SARIF asks plain-text messages to end with a period.
std::string Sentence(std::string text) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n')) text.pop_back();
  if (text.empty() || (text.back() != '.' && text.back() != '!' && text.back() != '?')) text += '.';
  return text;
}

// A sentence without its final period, to go on with ": …".
std::string Clause(std::string text) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n' || text.back() == '.')) text.pop_back();
  return text;
}

// A message: its text as shown, and the template of its rule with the arguments that fill it.
struct Message {
  std::string text;
  std::string kind;  // "default", "gap", "gap-issue": the template's name before it is made unique
  std::string format;
  std::vector<std::string> arguments;
};

// A violation's message is its rule's sentence, then ": " and the detail of this finding, if any. The
// template says the sentence and quotes the detail, or where the finding is when it has none.
Message ViolationMessage(const std::string& text, const std::string& where) {
  const size_t colon = text.find(": ");
  if (colon == std::string::npos || colon + 2 >= text.size())
    return {text, "default", EscapeTemplate(Clause(text)) + ": '{0}'.", {where}};
  return {text, "default", EscapeTemplate(text.substr(0, colon)) + ": '{0}'.", {text.substr(colon + 2)}};
}

Message CompatGapMessage(const CompatGap& gap) {
  const std::string api = gap.api.empty() ? std::string("a torch API") : gap.api;
  std::string m = "Compat gap: " + api + " is missing in Paddle";
  m += gap.bridge.empty() ? "; no bridge named" : "; bridged with " + gap.bridge;
  m += gap.removal.empty() ? "; no removal condition stated" : "; remove when " + gap.removal;
  if (!gap.issue.empty()) m += " (" + gap.issue + ")";
  Message message{
      m + ".",
      "gap",
      "Compat gap: '{0}' is missing in Paddle; bridge: '{1}'; removal condition: '{2}'",
      {api, gap.bridge.empty() ? "none named" : gap.bridge, gap.removal.empty() ? "none stated" : gap.removal}};
  if (!gap.issue.empty()) {
    message.kind = "gap-issue";
    message.format += "; Paddle issue: '{3}'";
    message.arguments.push_back(gap.issue);
  }
  message.format += ".";
  return message;
}

class RuleTable {
 public:
  // The index of the rule, adding it on first sight.
  int IndexOf(const std::string& id, const std::string& first_message, const char* level) {
    auto it = index_.find(id);
    if (it != index_.end()) return it->second;
    const auto& known = KnownRuleDescriptions();
    auto desc = known.find(id);
    std::string text = desc != known.end() ? desc->second : (first_message.empty() ? id : first_message);
    rules_.push_back({{"id", id},
                      {"name", RuleName(id)},
                      {"shortDescription", {{"text", Sentence(text)}}},
                      {"helpUri", RuleHelpUri(id)},
                      {"defaultConfiguration", {{"level", level}}},
                      {"messageStrings", json::object()}});
    int index = static_cast<int>(rules_.size()) - 1;
    index_.emplace(id, index);
    return index;
  }
  // The id of the rule's template for message, added on first sight ("default", then "default-2" for
  // another text of the same kind ...).
  std::string MessageId(int rule, const Message& message) {
    json& strings = rules_[static_cast<size_t>(rule)]["messageStrings"];
    for (int n = 1;; ++n) {
      const std::string id = n == 1 ? message.kind : message.kind + "-" + std::to_string(n);
      if (!strings.contains(id)) {
        strings[id] = {{"text", message.format}};
        return id;
      }
      if (strings[id]["text"] == message.format) return id;
    }
  }
  json Take() { return std::move(rules_); }

 private:
  json rules_ = json::array();
  std::map<std::string, int> index_;
};

json MakeResult(RuleTable& rules, QuotedLines& quoted, const std::string& rule, const char* level,
                const std::string& path, int line, const std::string& snippet, const Message& message) {
  const int index = rules.IndexOf(rule, message.text, level);
  return {
      {"ruleId", rule},
      {"ruleIndex", index},
      {"level", level},
      {"message", {{"text", message.text}, {"id", rules.MessageId(index, message)}, {"arguments", message.arguments}}},
      {"locations", json::array({{{"physicalLocation", quoted.PhysicalLocation(path, line, snippet)}}})},
      {"partialFingerprints", {{"forkscope/v1", Fingerprint({rule, path, message.text})}}}};
}

// A violation at its rule's severity, with the baseline's fingerprint, a grouped finding's files as
// related locations (the first also its location: a directory has no lines), and its baseline state
// when a baseline was applied.
json ViolationResult(RuleTable& rules, QuotedLines& quoted, const Violation& v, std::optional<bool> baselined) {
  const std::string rule = v.rule.empty() ? "unnamed-rule" : v.rule;
  const std::string& where = v.files.empty() ? v.path : v.files.front();
  const std::string shown = v.line > 0 ? v.path + ":" + std::to_string(v.line) : v.path;
  json result = MakeResult(rules, quoted, rule, SeverityName(v.severity), where, v.files.empty() ? v.line : 0,
                           v.snippet, ViolationMessage(v.message.empty() ? rule : v.message, shown));
  result["partialFingerprints"]["forkscope/v1"] = Fingerprint({rule, v.path, v.message.empty() ? rule : v.message});
  result["partialFingerprints"]["forkscope/finding/v1"] = ViolationFingerprint(v);
  if (!v.files.empty()) {
    json related = json::array();
    for (size_t i = 0; i < v.files.size(); ++i)
      related.push_back(
          {{"id", static_cast<int>(i)},
           {"physicalLocation", quoted.PhysicalLocation(v.files[i], 0)},
           {"message", {{"text", "One of the " + std::to_string(v.files.size()) + " files under " + v.path + "."}}}});
    result["relatedLocations"] = std::move(related);
  }
  if (!baselined) return result;
  result["baselineState"] = *baselined ? "unchanged" : "new";
  if (*baselined)
    result["suppressions"] = json::array({{{"kind", "external"}, {"justification", "accepted in the baseline"}}});
  return result;
}

// Where the analysis came from, for code scanning's run details; empty values are left out.
void AddProvenance(const Analysis& analysis, const SarifSource& source, json* run) {
  const RefInfo& fork = analysis.fork;
  if (fork.sha.empty()) return;
  (*run)["automationDetails"] = {{"id", "forkscope/" + fork.sha}};
  json props = {{"forkSha", fork.sha}};
  if (!fork.branch.empty()) props["forkBranch"] = fork.branch;
  if (!fork.url.empty())
    props["forkUrl"] = fork.url.find("://") == std::string::npos ? fork.url : sarif_internal::RepositoryUri(fork.url);
  if (!analysis.upstream.sha.empty()) props["upstreamSha"] = analysis.upstream.sha;
  if (!analysis.merge_base.empty()) props["mergeBase"] = analysis.merge_base;
  if (!analysis.rules_version.empty()) props["rulesVersion"] = analysis.rules_version;
  (*run)["properties"] = std::move(props);
  const std::string repository =
      sarif_internal::RepositoryUri(source.repository_uri.empty() ? fork.url : source.repository_uri);
  if (!repository.empty()) {
    json vcs = {{"repositoryUri", repository}, {"revisionId", fork.sha}, {"mappedTo", {{"uriBaseId", "%SRCROOT%"}}}};
    if (!fork.branch.empty() && fork.branch != "HEAD") vcs["branch"] = fork.branch;
    (*run)["versionControlProvenance"] = json::array({std::move(vcs)});
  }
  if (!source.checkout_uri.empty()) (*run)["originalUriBaseIds"] = {{"%SRCROOT%", {{"uri", source.checkout_uri}}}};
}

}  // namespace

std::string SarifRepositoryUri(const std::string& location) { return sarif_internal::RepositoryUri(location); }

std::string RuleHelpUri(const std::string& rule_id) {
  const auto& known = KnownRuleDescriptions();
  return std::string(kDocs) + "#" + (known.count(rule_id) ? rule_id : std::string("rules"));
}

json RenderSarif(const Analysis& analysis, const std::vector<bool>& baselined, const SarifSource& source) {
  RuleTable rules;
  QuotedLines quoted(analysis, source);
  json results = json::array();
  for (size_t i = 0; i < analysis.violations.size(); ++i) {
    std::optional<bool> state;
    if (i < baselined.size()) state = baselined[i];
    results.push_back(ViolationResult(rules, quoted, analysis.violations[i], state));
  }
  for (const CompatGap& gap : analysis.compat_gaps)
    results.push_back(MakeResult(rules, quoted, kCompatGapRule, "note", gap.path, gap.line, "", CompatGapMessage(gap)));

  json driver = {{"name", "forkscope"},
                 {"informationUri", "https://github.com/PFCCLab/forkscope"},
                 {"version", kToolVersion},
                 {"rules", rules.Take()}};
  json run = {{"tool", {{"driver", std::move(driver)}}}, {"results", std::move(results)}};
  AddProvenance(analysis, source, &run);
  return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
          {"version", "2.1.0"},
          {"runs", json::array({std::move(run)})}};
}

}  // namespace forkscope::analyzer
