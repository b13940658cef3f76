// Internal to the classifier (analyzer/classify/): the migration style of an analysis, decided by
// the weight of evidence across its classified hunks and directory moves. Pure; thread-safe.
#pragma once

#include "analyzer/classify/rules_data.h"
#include "analyzer/model/model.h"

namespace forkscope::analyzer::classify {

// Sets analysis.style and analysis.style_evidence from the classified files (their layers and
// patterns must be set) and analysis.moves.
void DetectStyle(const RulesData& rules, Analysis& analysis);

}  // namespace forkscope::analyzer::classify
