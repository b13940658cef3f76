// Text and Markdown for integrator reports: the `forkscope integration` output and the section of a
// fork's Markdown report that says how each integrator ships the fork. Pure.
#pragma once

#include <string>
#include <vector>

#include "analyzer/integration/integrator.h"

namespace forkscope::analyzer::integration {

std::string RenderIntegratorText(const IntegratorReport& report);
std::string RenderIntegratorMarkdown(const IntegratorReport& report);

// "## PaddleFleet integration" for the fork's Markdown report: one row per library of each report
// that names fork_name (its state, pin, steps, scope), then what to paste. "" when none names it.
std::string RenderForkIntegrationMarkdown(const std::string& fork_name, const std::vector<IntegratorReport>& reports);

}  // namespace forkscope::analyzer::integration
