// The report as GitHub-flavoured Markdown, sized for a CI job summary ($GITHUB_STEP_SUMMARY): the
// same summary table as the terminal, the machine in one line, failed cells with their whole
// error, the precision audit, and how to read the figures.
#pragma once

#include <string>

#include "ampbench/reports/report.h"

namespace ampbench::reports {

[[nodiscard]] std::string render_markdown(const Report& report);

}  // namespace ampbench::reports
