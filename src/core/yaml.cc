#include "core/yaml.h"

#include <sstream>

#include <yaml-cpp/eventhandler.h>

namespace rlcost {
namespace {

// Records where each document starts and whether it produced any event
// besides a null at its start; parsing stops after the second document.
class DocumentCounter : public YAML::EventHandler {
 public:
  int documents = 0;
  YAML::Mark first_start, second_start;
  void OnDocumentStart(const YAML::Mark& mark) override {
    ++documents;
    (documents == 1 ? first_start : second_start) = mark;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

Problem At(const std::string& origin, const YAML::Mark& mark, std::string message) {
  Problem p{"", std::move(message)};
  p.file = origin;
  p.line = mark.is_null() ? 0 : mark.line + 1;
  return p;
}

}  // namespace

Result<YAML::Node> LoadOneYamlDocument(std::string_view text, const std::string& origin, std::string_view what) {
  Error err;
  err.code = ErrorCode::kInvalidInput;
  try {
    std::istringstream in{std::string(text)};
    YAML::Parser parser(in);
    DocumentCounter counter;
    // At most two documents are asked for: a second is an error whichever it
    // is, so a parser that makes no progress cannot loop here.
    while (counter.documents < 2 && parser.HandleNextDocument(counter)) {
    }
    if (counter.documents == 2) {
      const YAML::Mark& at = counter.second_start;
      if (at.pos == counter.first_start.pos) {
        // The parser did not move: the token at `at` cannot start a node.
        char c = at.pos >= 0 && static_cast<size_t>(at.pos) < text.size() ? text[at.pos] : '?';
        std::string shown = c >= 0x21 && c <= 0x7e ? std::string("'") + c + "'" : "this character";
        std::string msg = "malformed YAML: " + shown + " at column " + std::to_string(at.column + 1) +
                          " cannot start a value";
        if (c == ',') msg += " (a ',' separates entries only inside [ ] or { })";
        err.problems.push_back(At(origin, at, std::move(msg)));
      } else {
        err.problems.push_back(At(origin, at,
                                  "a second YAML document starts here; " + std::string(what) +
                                      " holds one document (remove the '---' or split the file)"));
      }
      return Fail(std::move(err));
    }
    return YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    err.problems.push_back(At(origin, e.mark, "malformed YAML: " + e.msg));
    return Fail(std::move(err));
  }
}

}  // namespace rlcost
