#include "core/yaml.h"

#include <limits>
#include <sstream>
#include <vector>

#include <yaml-cpp/eventhandler.h>

namespace rlcost {
namespace {

// Thrown out of the parser's event loop when aliases pass the budget (or
// name the node they are in): parsing stops there, before any tree is built.
struct AliasRefused {
  YAML::Mark mark;
  std::string message;
};

// Counts, from the parser's events, the nodes a document stands for when
// each alias is read as a copy of the node it names: a node's size is
// 1 + its children's, an alias adds the size of its anchor's node. Sizes
// saturate, so 10^100 nested copies cannot overflow.
class AliasCounter {
 public:
  explicit AliasCounter(size_t budget) : budget_(budget) {}

  size_t added() const { return added_; }
  void Reset() {
    open_.clear();
    sizes_.clear();
  }
  void Leaf(YAML::anchor_t anchor) { Close(anchor, 1); }
  void Open(YAML::anchor_t anchor) {
    open_.push_back(Frame{anchor, 1});
    if (anchor) Size(anchor) = kOpen;
  }
  void End() {
    if (open_.empty()) return;
    const Frame f = open_.back();
    open_.pop_back();
    Close(f.anchor, f.nodes);
  }
  void Alias(const YAML::Mark& mark, YAML::anchor_t anchor) {
    const size_t n = anchor < sizes_.size() ? sizes_[anchor] : 1;
    if (n == kOpen) {
      throw AliasRefused{mark, "an alias inside the node it names (a cycle); write the value out instead"};
    }
    added_ = SatAdd(added_, n);
    if (added_ > budget_) {
      throw AliasRefused{mark, "YAML aliases here stand for more than " + std::to_string(budget_) +
                                   " copied nodes (at most " + std::to_string(kMaxYamlAliasNodes) +
                                   " are read for one input); write the repeated values out, or use fewer aliases"};
    }
    AddToParent(n);
  }

 private:
  static constexpr size_t kOpen = std::numeric_limits<size_t>::max();
  static constexpr size_t kCap = std::numeric_limits<size_t>::max() / 4;
  struct Frame {
    YAML::anchor_t anchor;
    size_t nodes;
  };
  static size_t SatAdd(size_t a, size_t b) { return a >= kCap || b >= kCap - a ? kCap : a + b; }
  size_t& Size(YAML::anchor_t anchor) {
    if (sizes_.size() <= anchor) sizes_.resize(anchor + 1, 1);
    return sizes_[anchor];
  }
  void Close(YAML::anchor_t anchor, size_t n) {
    if (anchor) Size(anchor) = n;
    AddToParent(n);
  }
  void AddToParent(size_t n) {
    if (!open_.empty()) open_.back().nodes = SatAdd(open_.back().nodes, n);
  }

  size_t budget_;
  size_t added_ = 0;
  std::vector<Frame> open_;
  std::vector<size_t> sizes_;  // by anchor id (ids restart at each document)
};

// Records where each document starts and whether it produced any event
// besides a null at its start; parsing stops after the second document.
// Counts what the aliases stand for on the way (AliasCounter).
class DocumentCounter : public YAML::EventHandler {
 public:
  explicit DocumentCounter(size_t alias_budget) : aliases(alias_budget) {}
  int documents = 0;
  YAML::Mark first_start, second_start;
  AliasCounter aliases;
  void OnDocumentStart(const YAML::Mark& mark) override {
    ++documents;
    (documents == 1 ? first_start : second_start) = mark;
    aliases.Reset();
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t anchor) override { aliases.Leaf(anchor); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override { aliases.Alias(mark, anchor); }
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t anchor, const std::string&) override {
    aliases.Leaf(anchor);
  }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    aliases.Open(anchor);
  }
  void OnSequenceEnd() override { aliases.End(); }
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    aliases.Open(anchor);
  }
  void OnMapEnd() override { aliases.End(); }
};

Problem At(const std::string& origin, const YAML::Mark& mark, std::string message) {
  Problem p{"", std::move(message)};
  p.file = origin;
  p.line = mark.is_null() ? 0 : mark.line + 1;
  return p;
}

}  // namespace

Result<YAML::Node> LoadOneYamlDocument(std::string_view text, const std::string& origin, std::string_view what,
                                       size_t* alias_budget) {
  Error err;
  err.code = ErrorCode::kInvalidInput;
  try {
    std::istringstream in{std::string(text)};
    YAML::Parser parser(in);
    DocumentCounter counter(alias_budget ? *alias_budget : kMaxYamlAliasNodes);
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
    if (alias_budget) *alias_budget -= counter.aliases.added();
    return YAML::Load(std::string(text));
  } catch (const AliasRefused& a) {
    err.problems.push_back(At(origin, a.mark, a.message));
    return Fail(std::move(err));
  } catch (const YAML::Exception& e) {
    err.problems.push_back(At(origin, e.mark, "malformed YAML: " + e.msg));
    return Fail(std::move(err));
  }
}

namespace {
// One pass of the parser's events over the first document of `text`: the
// aliases counted against the budget (AliasRefused past it). Only the first
// document, as YAML::Load reads only that (and asking for more could loop:
// core/yaml.h).
void CountAliases(std::string_view text, size_t* alias_budget) {
  std::istringstream in{std::string(text)};
  YAML::Parser parser(in);
  DocumentCounter counter(alias_budget ? *alias_budget : kMaxYamlAliasNodes);
  parser.HandleNextDocument(counter);
  if (alias_budget) *alias_budget -= counter.aliases.added();
}
}  // namespace

Result<YAML::Node> LoadYamlValue(std::string_view text, const std::string& path, const std::string& origin,
                                 size_t* alias_budget) {
  try {
    CountAliases(text, alias_budget);
    return YAML::Load(std::string(text));
  } catch (const AliasRefused& a) {
    Error err;
    err.problems.push_back(Problem{path, a.message, 0, origin});
    return Fail(std::move(err));
  } catch (const YAML::Exception& e) {
    Error err;
    err.problems.push_back(Problem{path, "cannot parse '" + std::string(text) + "' as a YAML value: " + e.msg, 0, origin});
    return Fail(std::move(err));
  }
}

std::string YamlAliasProblem(std::string_view text, size_t* alias_budget) {
  try {
    CountAliases(text, alias_budget);
  } catch (const AliasRefused& a) {
    return a.mark.is_null() ? a.message : "line " + std::to_string(a.mark.line + 1) + ": " + a.message;
  } catch (const YAML::Exception&) {
  }
  return "";
}

}  // namespace rlcost
