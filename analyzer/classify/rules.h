// Classification rules: path rules, hunk content rules, named patterns and violation rules,
// loaded from a JSON data file shipped with the binary (analyzer/rules/default_rules.json) and
// overridable by the user. A loaded Rules value is immutable and safe to share between threads.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "analyzer/model/model.h"
#include "base/status.h"

namespace forkscope::analyzer {

struct RulesData;  // compiled rules (RE2 programs etc.), defined in rules.cpp

class Rules {
 public:
  // Parses rules from JSON text; errors name the offending key.
  static Result<Rules> FromJson(const std::string& text, const std::string& origin);
  // Loads a rules file from disk.
  static Result<Rules> Load(const std::string& path);
  // The default rules: $FORKSCOPE_RULES if set, else the installed or source-tree default_rules.json.
  static Result<Rules> LoadDefault();
  // Where LoadDefault() looks, in order (for --help and errors).
  static std::string DefaultPath();

  // A short stable hash of the rules content: part of the analysis cache key.
  const std::string& version() const;
  // The parsed rules. Any text but the shipped default was parsed (and checked) by FromJson; the
  // shipped default, which the tests check, is parsed here on first use, once per process, from any
  // thread — a one-shot command answered from the cache needs only version().
  const RulesData& data() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace forkscope::analyzer
