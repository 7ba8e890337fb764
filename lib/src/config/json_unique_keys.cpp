// JSON text whose objects name each key once: nlohmann::json keeps the last of two equal keys
// silently, so a config's `{"queues": {"depth": 64, "depth": 128}}` would run with 128 and no word.
// The parser's callback sees every key in document order; a stack of the open objects and
// arrays gives the dotted path of the one given twice.
#include <fmt/format.h>

#include <istream>
#include <set>
#include <utility>
#include <vector>

#include "bam/config/config_io.hpp"

namespace bam {
namespace {

using event = nlohmann::json::parse_event_t;

/// The parser callback: refuses the second occurrence of a key in one object.
class unique_keys {
 public:
  unique_keys(std::string prefix, std::string_view where)
      : prefix_(std::move(prefix)), where_(where) {}

  bool operator()(int /*depth*/, event e, const nlohmann::json& parsed) {
    switch (e) {
      case event::object_start:
        open(true);
        break;
      case event::array_start:
        open(false);
        break;
      case event::key:
        on_key(parsed.get<std::string>());
        break;
      case event::value:
        count_element();
        break;
      case event::object_end:
      case event::array_end:
        frames_.pop_back();
        break;
    }
    return true;  // keep every value: the document is the one nlohmann would build
  }

 private:
  struct frame {
    std::string path;  ///< dotted path of this object or array ("" = the document)
    bool object = true;
    std::set<std::string> keys;  ///< objects: the keys seen so far
    std::string last_key;        ///< objects: the key of the value being parsed
    std::size_t elements = 0;    ///< arrays: elements seen so far
  };

  static std::string join(const std::string& path, const std::string& leaf) {
    return path.empty() ? leaf : path + "." + leaf;
  }

  /// The path of the value that starts now (a child of the innermost open object or array).
  std::string child_path() const {
    if (frames_.empty()) return prefix_;
    const frame& top = frames_.back();
    if (top.object) return join(top.path, top.last_key);
    return fmt::format("{}[{}]", top.path, top.elements);
  }

  void open(bool object) {
    frame f;
    f.path = child_path();
    f.object = object;
    count_element();
    frames_.push_back(std::move(f));
  }

  void count_element() {
    if (!frames_.empty() && !frames_.back().object) ++frames_.back().elements;
  }

  void on_key(const std::string& key) {
    frame& top = frames_.back();
    if (!top.keys.insert(key).second) {
      throw config_error(join(top.path, key),
                         fmt::format("duplicate key: given twice in one JSON object{}{}, allowed "
                                     "once",
                                     where_.empty() ? "" : " ", where_));
    }
    top.last_key = key;
  }

  std::string prefix_;
  std::string_view where_;
  std::vector<frame> frames_;
};

/// nlohmann's callback signature over `guard`.
nlohmann::json::parser_callback_t callback_of(unique_keys& guard) {
  return [&guard](int depth, event e, nlohmann::json& parsed) { return guard(depth, e, parsed); };
}

}  // namespace

nlohmann::json parse_json_unique_keys(std::string_view text, const std::string& prefix,
                                      std::string_view where) {
  unique_keys guard(prefix, where);
  return nlohmann::json::parse(text.begin(), text.end(), callback_of(guard));
}

nlohmann::json parse_json_unique_keys(std::istream& in, const std::string& prefix,
                                      std::string_view where) {
  unique_keys guard(prefix, where);
  return nlohmann::json::parse(in, callback_of(guard));
}

}  // namespace bam
