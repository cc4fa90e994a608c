// The coNCePTuaL backend's program skeleton (gen/conceptual/NcptlBackend.h): run() walks the
// program, awaits what is still outstanding at its end and fills templates/ncptl/program.mustache
// (for a scale-free program on a grid, grid.mustache around the ASSERTs and the statements); the
// helpers that join statements into pieces and blocks and write their comments; and the Backend,
// which checks every program with ncptl/Checker.h before returning it, with its factory
// createNcptlBackend (gen/NcptlBackend.h).
#include "gen/conceptual/NcptlBackend.h"
#include "gen/NcptlBackend.h"
#include "ncptl/Checker.h"

namespace tracegen::gen::conceptual {

std::string trimNewlines(std::string s) {
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

// One line of comment text: no newline may end the comment early.
std::string oneLine(std::string s) {
  for (auto& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

std::string Renderer::run() {
  outstanding_ = {{all_, 0}};
  collectLoops(p_.body);
  decideTags(p_.body);
  for (const auto& n : p_.notes) note(n);

  std::vector<Piece> pieces;
  out_ = &pieces;
  walk(p_.body, all_);
  // Nothing may be pending at the end of the program (§3.6).
  RankList busy = busyRanks(all_);
  if (!busy.empty()) {
    Piece end;
    end.comments.push_back(fill("comment", commentData("end of the program", nullptr, "complete every request still outstanding")));
    end.stmts.push_back(awaitStmt(busy));
    pieces.push_back(std::move(end));
    completeRequests(busy, -1);
  }

  data d;
  std::string text;
  if (scaleFree()) {
    // The conditions the formulas need come first; on a grid they read px, py, pz, so they
    // and the program's statements go inside the grid's bindings (grid.mustache).
    const std::vector<std::string> asserts = scaleAsserts();
    // At top level (1-D) each ASSERT is a statement of its own; on a grid they open its body.
    std::vector<Piece> first;
    for (std::size_t i = 0; i < asserts.size(); ++i) {
      if (i == 0 || gridDims() == 1) first.emplace_back();
      if (i == 0) first.back().comments.push_back(fill("comment", commentData("the scale", nullptr, "the task counts this benchmark fits")));
      first.back().stmts.push_back(asserts[i]);
    }
    pieces.insert(pieces.begin(), first.begin(), first.end());
    if (gridDims() == 1) {
      text = topLevel(pieces);
    } else {
      data g;
      g.set("dim2", gridDims() == 2);
      g.set("dim3", gridDims() == 3);
      g.set("descending", p_.scaleFree->descending);
      g.set("body", indent(body(pieces), gridDims() == 2 ? 2 : 4));
      text = fill("grid", g, false);
    }
  } else {
    text = topLevel(pieces);
  }
  d.set("fixedScale", !scaleFree());
  d.set("scaleFree", scaleFree());
  d.set("grid", scaleFree() && gridDims() > 1);
  d.set("line", scaleFree() && gridDims() == 1);
  d.set("dim3", scaleFree() && gridDims() == 3);
  d.set("descending", scaleFree() && p_.scaleFree->descending);
  d.set("dims", std::to_string(gridDims()));
  d.set("inputs", oneLine(scaleFree() ? p_.scaleFree->inputs : std::string()));
  d.set("minTasks", std::to_string(gridDims() == 1 ? 2 : gridDims() == 2 ? 4 : 8));
  d.set("title", "coNCePTuaL benchmark generated from an MPI trace");
  d.set("source", oneLine(p_.source.empty() ? std::string("an MPI trace") : p_.source));
  d.set("origin", oneLine(p_.origin.empty() ? std::string("unknown origin") : p_.origin));
  d.set("ranks", std::to_string(p_.numRanks));
  d.set("command", oneLine(opt_.commandLine.empty() ? std::string("tracegen") : opt_.commandLine));
  list noteList;
  for (const auto& n : notes()) noteList.push_back(data("text", oneLine(n)));
  d.set("hasNotes", !notes().empty());
  d.set("notes", noteList);
  d.set("body", text);
  return fill("program", d, false);
}

std::string Renderer::fill(const std::string& name, const data& d, bool trim) {
  std::string out = render(name, d);
  return trim ? trimNewlines(out) : out;
}

std::string Renderer::topLevel(const std::vector<Piece>& pieces) {
  list items;
  for (const auto& pc : pieces) {
    if (pc.stmts.empty()) continue;
    data item;
    list comments;
    for (const auto& c : pc.comments) comments.push_back(data("text", c));
    item.set("comments", comments);
    item.set("code", joinStmts(pc.stmts));
    items.push_back(item);
  }
  data d;
  d.set("items", items);
  return fill("toplevel", d, false);
}

// Statements of one piece joined with THEN (no comments).
std::string Renderer::joinStmts(const std::vector<std::string>& stmts) {
  list items;
  for (std::size_t i = 0; i < stmts.size(); ++i) {
    data item;
    item.set("comments", list{});
    item.set("code", stmts[i]);
    item.set("last", i + 1 == stmts.size());
    items.push_back(item);
  }
  data d;
  d.set("items", items);
  return fill("block", d);
}

// A brace body: every statement of every piece, joined with THEN, indented by two.
std::string Renderer::body(const std::vector<Piece>& pieces) {
  list items;
  std::size_t total = 0;
  for (const auto& pc : pieces) total += pc.stmts.size();
  std::size_t n = 0;
  for (const auto& pc : pieces) {
    for (std::size_t i = 0; i < pc.stmts.size(); ++i) {
      data item;
      list comments;
      if (i == 0)
        for (const auto& c : pc.comments) comments.push_back(data("text", c));
      item.set("comments", comments);
      item.set("code", pc.stmts[i]);
      item.set("last", ++n == total);
      items.push_back(item);
    }
  }
  data d;
  d.set("items", items);
  return indent(fill("block", d), 2);
}

data Renderer::commentData(const std::string& op, const CallStmt* call, const std::string& detail) {
  data d;
  d.set("op", op);
  d.set("hasEvent", call && call->event);
  d.set("id", call && call->event ? std::to_string(call->event->id) : std::string());
  std::string site = call ? siteOf(call->event) : std::string();
  d.set("hasSite", !site.empty());
  d.set("site", site);
  d.set("hasDetail", !detail.empty());
  d.set("detail", detail);
  return d;
}

std::string Renderer::siteOf(const Event* e) const {
  const std::vector<std::string> sites = callSites(e);
  const std::vector<std::string> named = siteDescriptions(e);
  std::string s;
  for (std::size_t i = 0; i < sites.size(); ++i) s += (i == 0 ? "" : ", ") + (named[i].empty() ? sites[i] : named[i].substr(3));  // the templates say "at": no "in "
  return oneLine(s);
}

std::string Renderer::callComment(const CallStmt& c, const std::string& detail) {
  return fill("comment", commentData(std::string(opName(c.op)), &c, detail));
}

}  // namespace tracegen::gen::conceptual

namespace tracegen::gen {

namespace {

using conceptual::Renderer;

class NcptlBackend : public Backend {
 public:
  std::string_view name() const override { return "ncptl"; }
  std::string_view extension() const override { return ".ncptl"; }
  bool needsReceivedBytes() const override { return true; }
  // Every program is checked before it is handed out (grammar, static rules, generator
  // checklist, per-task simulation): a failure is a bug of this backend, not of the input.
  std::string render(const Program& program, const GenOptions& options) const override {
    // A message nobody receives is the trace's doing (check-communication warns about it), and
    // coNCePTuaL has no statement for it: an UNSUSPECTING send needs its RECEIVE (§4.7).
    if (program.unreceivedMessages > 0)
      throw std::invalid_argument(fmt::format(
          "{} message{} sent but never received ({}{}): coNCePTuaL cannot express a message that no task "
          "receives; write C instead (-o bench.c), which sends it as the application did",
          program.unreceivedMessages, program.unreceivedMessages == 1 ? " is" : "s are", program.firstUnreceived,
          program.unreceivedMessages == 1 ? "" : ", the first"));
    std::string text = Renderer(program, options).run();
    ncptl::CheckOptions co;
    co.generated = true;
    co.scaleFree = program.scaleFree.has_value();
    co.simulationBudget = options.checkBudget;
    const ncptl::CheckResult r = ncptl::check(text, co);
    if (!r.ok()) {
      std::string why;
      int shown = 0;
      for (const auto& d : r.diagnostics)
        if (d.severity == ncptl::Diagnostic::Severity::Error && shown++ < 5)
          why += ncptl::formatDiagnostic(options.outputName.empty() ? "<generated>" : options.outputName, text, d);
      // One statement per collective for all its members cannot keep collectives that the
      // members call at different events: said as what it is, not as a bug.
      if (program.partialCollectives > 0)
        throw InputError(program.source, program.firstPartialCollectiveLine, fmt::format(
            "coNCePTuaL cannot express this trace: {} collective event{} leave{} out members of {} communicator "
            "(align-collectives could not match {} call by call across ranks; the first: {}), and written as "
            "one program the collectives deadlock; write C instead (-o bench.c), where each rank calls them in "
            "its own order. The coNCePTuaL check:\n{}",
            program.partialCollectives, program.partialCollectives == 1 ? "" : "s",
            program.partialCollectives == 1 ? "s" : "", program.partialCollectives == 1 ? "its" : "their",
            program.partialCollectives == 1 ? "it" : "them", program.firstPartialCollective, why),
            {}, "align-collectives' warnings above name the calls it could not match");
      // Unmatched receives name the size they posted, and a RECEIVE must name the size of the
      // message it takes (§5.1): a trace too large to match is a limit of the input's size.
      if (!program.receivesMatched)
        throw std::invalid_argument(fmt::format(
            "the trace expands to more calls than --call-budget allows, so its receives could not be matched "
            "with their sends, and the sizes they posted do not make a valid coNCePTuaL program; raise "
            "--call-budget, or write C instead (-o bench.c), which posts the sizes the application posted. "
            "The coNCePTuaL check:\n{}",
            why));
      throw std::logic_error("the generated coNCePTuaL program fails its check:\n" + why);
    }
    return text;
  }
};

}  // namespace

std::unique_ptr<Backend> createNcptlBackend() { return std::make_unique<NcptlBackend>(); }

}  // namespace tracegen::gen
