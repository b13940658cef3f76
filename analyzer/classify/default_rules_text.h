// The shipped rules file (analyzer/rules/default_rules.json) as it was when this binary was built,
// compiled in by CMakeLists.txt. Rules::FromJson recognises this exact text: the tests compile every
// regex of it, so its regexes are left to compile on first use. Thread contract: a constant.
#pragma once

#include <string_view>

namespace forkscope::analyzer {

std::string_view DefaultRulesText();

}  // namespace forkscope::analyzer
