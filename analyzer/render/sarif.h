// SARIF 2.1.0 rendering of an analysis' violations (and compat gaps as notes), so GitHub code
// scanning shows them inline. Pure.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/model/model.h"

namespace forkscope::analyzer {

// Where the analysed files can be read, and where they came from; every field may be left empty.
struct SarifSource {
  // versionControlProvenance.repositoryUri: an absolute URI of the repository analysed ("" = the
  // fork's URL when it is one, else no provenance). Credentials are dropped; git@host:path becomes
  // ssh://host/path.
  std::string repository_uri;
  // originalUriBaseIds' %SRCROOT%: the checkout as a file:// URI ending in '/' ("" = left out).
  std::string checkout_uri;
  // The text of a path in the analysed revision (for a path the fork deleted: the base's); nullopt
  // when unknown. Unset, or nullopt, the lines come from the analysis' hunks and the violation's snippet.
  std::function<std::optional<std::string>(const std::string& path)> file_text;
};

// One run of tool "forkscope": rules for every violation rule id seen (name, helpUri at the rule's
// section of docs/check.md, messageStrings), results (the violations in order, then the compat gaps)
// with physicalLocation (artifactLocation.uri = path — a grouped finding's first file — region.startLine
// >= 1 with its snippet, and a contextRegion of the lines around it), message.text plus message.id and
// arguments, level = the violation's severity ("error", "warning", "note"), "note" for compat gaps; a
// grouped finding's files as relatedLocations. baselined (see analyzer/classify/gate.h), when not
// empty, marks each violation's baselineState ("unchanged" or "new"), and an accepted one carries an
// external suppression so code scanning does not raise it again. versionControlProvenance names the
// repository and the fork revision analysed (source.repository_uri, else the fork's URL).
nlohmann::json RenderSarif(const Analysis& analysis, const std::vector<bool>& baselined = {},
                           const SarifSource& source = {});

// An absolute URI for a repository location, "" when it is none: credentials dropped, git@host:path
// as ssh://host/path, an absolute local path as file:///path.
std::string SarifRepositoryUri(const std::string& location);

// The documentation of a rule: its section of docs/check.md (the rules section for an id it lacks).
std::string RuleHelpUri(const std::string& rule_id);

}  // namespace forkscope::analyzer
