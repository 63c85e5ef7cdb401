#include "html_assets.h"

namespace ampbench::reports::detail {

const char* const kHtmlStyle = R"css(
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px auto; max-width: 1180px;
       color: #1f2328; background: #fff; padding: 0 16px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid #d0d7de; padding-bottom: 4px; }
.machine { color: #57606a; margin-bottom: 16px; }
div.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { padding: 4px 10px; border-bottom: 1px solid #eaeef2; text-align: left; white-space: nowrap; }
th { background: #f6f8fa; }
td.error { white-space: normal; color: #cf222e; max-width: 560px; }
.charts { display: flex; flex-wrap: wrap; gap: 16px; }
figure.chart { margin: 0; border: 1px solid #d0d7de; border-radius: 6px; padding: 8px; background: #fff; }
figure.chart figcaption { font-weight: 600; margin-bottom: 4px; }
figure.chart svg text { font-size: 11px; fill: #57606a; }
.legend { display: flex; gap: 12px; font-size: 12px; color: #57606a; margin-top: 4px; }
.legend span::before { content: ""; display: inline-block; width: 10px; height: 10px; margin-right: 4px;
                       background: var(--swatch); border-radius: 2px; }
.note { color: #57606a; }
/* Verdicts, coloured as the comparison charts draw them. */
[data-verdict="regressed"] { --verdict: #cf222e; } [data-verdict="improved"] { --verdict: #1a7f37; }
[data-verdict="inconclusive"] { --verdict: #9a6700; } [data-verdict="unchanged"] { --verdict: #57606a; }
[data-verdict="missing"], [data-verdict="not compared"] { --verdict: #8c959f; }
tr[data-verdict] td.verdict, .badge { color: var(--verdict); font-weight: 600; }
tr[data-verdict="regressed"] { background: #ffebe9; } tr[data-verdict="improved"] { background: #dafbe1; }
p.gate { font-size: 16px; font-weight: 600; padding: 6px 10px; border-radius: 6px; }
p.gate[data-passed="true"] { background: #dafbe1; color: #1a7f37; }
p.gate[data-passed="false"] { background: #ffebe9; color: #cf222e; }
.warning { color: #9a6700; font-weight: 600; }
#ampbench-render-status[data-status="error"] { color: #cf222e; font-weight: 600; }
)css";

const char* const kHtmlErrorTrap = R"js(
window.addEventListener('error', function (event) {
  var status = document.getElementById('ampbench-render-status');
  status.setAttribute('data-status', 'error');
  status.textContent = 'The charts could not be drawn: ' + event.message;
});
)js";

}  // namespace ampbench::reports::detail
