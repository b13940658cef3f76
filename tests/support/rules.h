// The shipped rules of this source tree, loaded once per test binary: what the analyzer tests classify
// with (the source tree's file, not $FORKSCOPE_RULES or an installed copy).
#pragma once

#include <catch2/catch.hpp>

#include "analyzer/classify/rules.h"

namespace forkscope::testing {

inline const analyzer::Rules& DefaultRules() {
  static const analyzer::Rules rules = [] {
    auto loaded = analyzer::Rules::Load(FORKSCOPE_SOURCE_DIR "/analyzer/rules/default_rules.json");
    INFO(loaded.status().ToString());
    REQUIRE(loaded.ok());
    return *loaded;
  }();
  return rules;
}

}  // namespace forkscope::testing
