// What the two HTML pages (the run report, the comparison page) share: escaping, the head with
// the inlined stylesheet, and the tail that embeds the data and the scripts. The pages open
// offline: nothing is fetched.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "render/table_data.h"

namespace ampbench::reports::detail {

// Text safe in an element or a double-quoted attribute.
[[nodiscard]] std::string html_escaped(std::string_view text);

// Each text escaped in its own <tag>...</tag> ("th" or "td").
[[nodiscard]] std::string html_cells(const std::vector<std::string>& cells, const char* tag);
// A scrollable table of escaped text with the CSS class given; a spanning row's rest is left out.
[[nodiscard]] std::string html_table(const char* css_class, const Table& table);

// <!DOCTYPE html> up to and including <body>, titled, with the stylesheet; then the <h1>.
[[nodiscard]] std::string html_page_head(const std::string& title);

// The status line the scripts mark data-status="ok" when every chart was drawn without an error
// (the browser tests check that marker).
[[nodiscard]] std::string html_render_status();

// The JSON data in <script type="application/json" id="ampbench-data">, unable to end its element
// early, then the error trap, the chart kit and the page's script, and the closing tags.
[[nodiscard]] std::string html_page_tail(const std::string& json, const char* script);

}  // namespace ampbench::reports::detail
