// The stylesheet and scripts inlined into every HTML page: the page must open offline, so nothing
// is fetched. They live in reports/assets/ as .css and .js files, compiled in by CMake
// (cmake/AmpbenchEmbeddedAssets.cmake). The script draws the charts as SVG from the report's JSON embedded in the page
// and marks #ampbench-render-status with data-status="ok" only when every chart was drawn without a script error (the
// browser test checks that marker).
#pragma once

namespace ampbench::reports::detail {

extern const char* const kHtmlStyle;
// Registered before the main script so that even a syntax error in it is caught and shown.
extern const char* const kHtmlErrorTrap;
// Defines `ampbenchCharts`, the helpers both pages' scripts draw with (chart_kit.js).
extern const char* const kHtmlChartKit;
extern const char* const kHtmlScript;            // the run report's charts
extern const char* const kHtmlComparisonScript;  // the comparison page's charts
extern const char* const kHtmlHistoryScript;     // the history page's charts

}  // namespace ampbench::reports::detail
