// The generic backend: one walk of the lowered Program (gen/Program.h) for every output
// language, with one virtual hook per kind of statement and per family of operations.
//
// A backend derives from ProgramWalker and overrides the hooks where its language differs; the
// walk itself (statement order, runs of statements with one rank set, loops, the computation
// before each call, the dispatch of a call to its operation family) and the helpers every
// backend needs (templates rendered by kainjow mustache, indentation, call-site names, the
// notes of the generated header) live here once. docs/c-backend.md ("The program walker")
// describes the hooks for a newcomer writing a backend.
//
// The walk, for a body within the ranks `outer`:
//
//   for each run of consecutive statements with the same rank set:
//     beginGuard(ranks, outer, firstRun)
//     for each statement of the run (its ranks within `outer`; skipped if none):
//       loop:  loop(s, ranks)   -> beginLoop, walk(body, ranks), endLoop
//       call:  call(c, ranks)   -> beginCall, compute, <family hook>, endCall
//     endGuard(ranks, outer)
//
// A backend that renders a loop body more than once (the coNCePTuaL backend, once per trip
// count) overrides loop() and calls walk() itself. The family hooks throw "no <backend> lowering"
// by default, so a new backend fails loudly on what it has not written yet.
#pragma once

#include <cstddef>
#include <kainjow/mustache.hpp>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gen/Backend.h"
#include "gen/Program.h"

namespace tracegen::gen {

// The templates of one backend (templates/<dir>/<name>.mustache), compiled once each and
// rendered without HTML escaping. With `stripFinalNewline` the template's text loses the final
// newline of its file, so that a snippet can be put inside a line.
class TemplateCache {
 public:
  TemplateCache(std::string dir, bool stripFinalNewline) : dir_(std::move(dir)), strip_(stripFinalNewline) {}
  // Throws std::logic_error naming the template if it is missing its file or invalid.
  std::string render(const std::string& name, const kainjow::mustache::data& data);

 private:
  std::string dir_;
  bool strip_;
  std::map<std::string, std::unique_ptr<kainjow::mustache::mustache>> cache_;
};

// The families of operations a call statement is dispatched to (by its OpKind, ir/Ops.h).
enum class OpFamily {
  Lifecycle,              // Init, Finalize
  PointToPoint,           // Send, Isend, SendInit, Recv, Irecv, RecvInit, Sendrecv, Probe
  Completion,             // Wait, WaitAll (waits and tests)
  Collective,             // Collective
  NonblockingCollective,  // ICollective
  Communicator,           // CommCreate, CommFree, Group (communicator and group constructors)
  Persistent,             // Start, RequestFree
  MatchedProbe,           // MatchedProbe, MatchedRecv
  OneSided,               // WinCollective, Rma, WinPassive
  FileIo,                 // FileCollective, FileIo
  Opaque,                 // Opaque, OpaqueRequest (recorded, not modelled: --skip-unknown)
};
OpFamily opFamily(Op op);

class ProgramWalker {
 public:
  virtual ~ProgramWalker() = default;

 protected:
  ProgramWalker(const Program& program, const GenOptions& options, std::string templateDir, bool stripFinalNewline);

  // ---- the walk
  // Statements [from, to) of a body whose statements' ranks lie within `outer`.
  void walk(const std::vector<Stmt>& body, std::size_t from, std::size_t to, const RankList& outer);
  void walk(const std::vector<Stmt>& body, const RankList& outer) { walk(body, 0, body.size(), outer); }
  // One loop statement, for `ranks` (its ranks within the enclosing ones): beginLoop, the body
  // walked within `ranks`, endLoop.
  virtual void loop(const Stmt& s, const RankList& ranks);
  // One call statement: beginCall, compute, the family hook of its operation, endCall.
  virtual void call(const CallStmt& c, const RankList& ranks);

 private:
  void callAt(const CallStmt& c, const RankList& ranks);

 protected:

  // ---- hooks: statements
  // Around each run of consecutive statements with the same rank set (`firstRun`: the first run
  // of its body). A backend that guards by rank set guards where `outer` is not within `ranks`.
  virtual void beginGuard(const RankList& /*ranks*/, const RankList& /*outer*/, bool /*firstRun*/) {}
  virtual void endGuard(const RankList& /*ranks*/, const RankList& /*outer*/) {}
  virtual void beginLoop(const Stmt& /*s*/, const RankList& /*ranks*/) {}
  virtual void endLoop(const Stmt& /*s*/, const RankList& /*ranks*/) {}
  virtual void beginCall(const CallStmt& /*c*/, const RankList& /*ranks*/) {}
  // The computation before the call (c.computeUs; often the constant 0).
  virtual void compute(const CallStmt& /*c*/, const RankList& /*ranks*/) {}
  virtual void endCall(const CallStmt& /*c*/, const RankList& /*ranks*/) {}

  // ---- hooks: operation families (the default refuses: "no <backend> lowering for MPI_...")
  virtual void lifecycle(const CallStmt& c, const RankList& ranks);
  virtual void pointToPoint(const CallStmt& c, const RankList& ranks);
  virtual void completion(const CallStmt& c, const RankList& ranks);
  virtual void collective(const CallStmt& c, const RankList& ranks);
  virtual void nonblockingCollective(const CallStmt& c, const RankList& ranks);
  virtual void communicator(const CallStmt& c, const RankList& ranks);
  virtual void persistent(const CallStmt& c, const RankList& ranks);
  virtual void matchedProbe(const CallStmt& c, const RankList& ranks);
  virtual void oneSided(const CallStmt& c, const RankList& ranks);
  virtual void fileIo(const CallStmt& c, const RankList& ranks);
  virtual void opaque(const CallStmt& c, const RankList& ranks);
  [[noreturn]] void unsupported(const CallStmt& c) const;
  virtual std::string_view backendName() const = 0;

  // ---- shared helpers
  std::string render(const std::string& name, const kainjow::mustache::data& data) { return templates_.render(name, data); }
  // Every non-empty line of `text` indented by `spaces`.
  static std::string indent(const std::string& text, int spaces);
  // The call sites of an event (its own, then the merged ones), as the trace names them; none
  // without a trace or a site.
  std::vector<std::string> callSites(const Event* e) const;
  // The same sites as people read them where the trace names their frames
  // (Trace::siteDescription: `in exchange (stencil.c:77) <- main (stencil+0x1234)`), one per
  // entry of callSites; "" where a site has no names.
  std::vector<std::string> siteDescriptions(const Event* e) const;
  // Notes for the generated header, each once, in the order first said.
  void note(const std::string& text);
  const std::vector<std::string>& notes() const { return notes_; }
  static const Expr* param(const CallStmt& c, Param p);
  static const std::vector<Expr>* vec(const CallStmt& c, Param p);

  const Program& program_;
  const GenOptions& options_;
  RankList all_;  // every rank of the program

 private:
  TemplateCache templates_;
  std::vector<std::string> notes_;
};

// One expression printer per language: print() dispatches on the kind of expression once, and
// the language spells each form. Children are printed by calling print() again.
class ExprPrinter {
 public:
  virtual ~ExprPrinter() = default;
  std::string print(const Expr& e);

 protected:
  virtual std::string constant(double value) = 0;
  virtual std::string rankOffset(std::int64_t offset) = 0;
  virtual std::string byRank(const Expr& e) = 0;          // e.groups, e.children
  virtual std::string byExecution(const Expr& e) = 0;     // e.children, k mod n
  virtual std::string firstIteration(const Expr& e) = 0;  // e.loop, e.children[0] / [1]
  // Scale-free programs (Program::scaleFree); the default refuses (std::invalid_argument).
  virtual std::string formula(const Expr& e);      // e.formula
  virtual std::string gridPeer(const Expr& e);     // e.grid
  virtual std::string progression(const Expr& e); // e.children: start, step, length
  virtual std::string relationPeer(const Expr& e); // e.relation, its step k mod steps at execution k
  virtual std::string progressionPeer(const Expr& e);  // the rank plus a progression, mod the rank count
  virtual std::string block(const Expr& e);        // e.block, of the caller's coordinate
  // A compute time by call (e.firsts, e.children); the default writes its mean (e.value), for
  // languages without a counter of their own per value.
  virtual std::string byCall(const Expr& e);
};

}  // namespace tracegen::gen
