// JSON text in and out, strictly: nlohmann's parser keeps the last of two equal keys, so a report
// with a second "cells" would be judged on whichever came last, silently; the parser callback here
// refuses duplicated keys (and absurd nesting) instead, naming the key's path. Writing replaces
// bytes that are not UTF-8 (a hostname or CPU model from the environment) instead of throwing.
#include <set>
#include <string>
#include <vector>

#include "ampbench/reports/report_json.h"

namespace ampbench::reports {
namespace {

using nlohmann::json;

// nlohmann's messages start with "[json.exception.parse_error.101] "; keep what a person reads.
std::string parse_error_text(const json::exception& error) {
  std::string text = error.what();
  if (const auto end = text.find("] "); text.rfind("[json.exception.", 0) == 0 && end != std::string::npos) {
    text.erase(0, end + 2);
  }
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

// Where the parser is, as a path ("cells[2].settings"), and the keys seen in each open object.
class KeyTracker {
 public:
  bool on_event(json::parse_event_t event, const json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        count_element();
        if (frames_.size() >= kMaxJsonDepth) {
          throw ReportError(where() + "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
        }
        frames_.push_back({event == json::parse_event_t::object_start, {}, {}, -1});
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        frames_.pop_back();
        break;
      case json::parse_event_t::key: {
        Frame& frame = frames_.back();
        frame.key = parsed.get_ref<const std::string&>();
        if (!frame.keys.insert(frame.key).second) throw ReportError(where() + "duplicate key \"" + frame.key + "\"");
        break;
      }
      case json::parse_event_t::value:
        count_element();
        break;
    }
    return true;
  }

 private:
  struct Frame {
    bool object = false;
    std::set<std::string, std::less<>> keys;
    std::string key;
    long long index = -1;
  };

  void count_element() {
    if (!frames_.empty() && !frames_.back().object) ++frames_.back().index;
  }

  // "cells[2].settings: " for the innermost open container (its key's parent for a key event).
  [[nodiscard]] std::string where() const {
    std::string path;
    for (std::size_t i = 0; i + 1 < frames_.size(); ++i) {
      const Frame& frame = frames_[i];
      if (frame.object) {
        path += (path.empty() ? "" : ".") + frame.key;
      } else {
        path += "[" + std::to_string(frame.index) + "]";
      }
    }
    return path.empty() ? std::string() : path + ": ";
  }

  std::vector<Frame> frames_;
};

}  // namespace

json parse_json_text(const std::string& text, const std::string& source) {
  KeyTracker tracker;
  try {
    return json::parse(
        text, [&tracker](int, json::parse_event_t event, json& parsed) { return tracker.on_event(event, parsed); });
  } catch (const json::exception& error) {
    throw ReportError(source + ": not valid JSON: " + parse_error_text(error));
  } catch (const ReportError& error) {
    throw ReportError(source + ": " + error.what());
  }
}

std::string json_text(const json& value, int indent) {
  return value.dump(indent, ' ', false, json::error_handler_t::replace);
}

}  // namespace ampbench::reports
