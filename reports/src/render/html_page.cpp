#include "render/html_page.h"

#include "render/html_assets.h"

namespace ampbench::reports::detail {

std::string html_escaped(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string html_cells(const std::vector<std::string>& cells, const char* tag) {
  std::string out;
  for (const auto& text : cells) out += std::string("<") + tag + ">" + html_escaped(text) + "</" + tag + ">";
  return out;
}

std::string html_table(const char* css_class, const Table& table) {
  std::string out = std::string("<div class=\"table-wrap\"><table class=\"") + css_class + "\"><thead><tr>" +
                    html_cells(table.header, "th") + "</tr></thead><tbody>\n";
  for (const auto& row : table.rows) out += "<tr>" + html_cells(row.cells, "td") + "</tr>\n";
  return out + "</tbody></table></div>\n";
}

std::string html_page_head(const std::string& title) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
         html_escaped(title) + "</title>\n<style>" + kHtmlStyle + "</style>\n</head>\n<body>\n<h1>" +
         html_escaped(title) + "</h1>\n";
}

std::string html_render_status() {
  return "<p id=\"ampbench-render-status\" data-status=\"pending\">Drawing the charts (this needs JavaScript)…</p>\n";
}

std::string html_page_tail(const std::string& json, const char* script) {
  // Every "<" becomes \u003c, which only occurs inside JSON strings, where the escape means the
  // same character: the data cannot close its <script> element.
  std::string safe;
  safe.reserve(json.size());
  for (const char c : json) safe += c == '<' ? std::string("\\u003c") : std::string(1, c);
  return "<script type=\"application/json\" id=\"ampbench-data\">" + safe + "</script>\n<script>" + kHtmlErrorTrap +
         "</script>\n<script>" + kHtmlChartKit + "</script>\n<script>" + script + "</script>\n</body>\n</html>\n";
}

}  // namespace ampbench::reports::detail
