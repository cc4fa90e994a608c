// The C+MPI backend: renders a Program (gen/Program.h) as one self-contained C11 file.
//
// The generated program makes the application's MPI calls themselves, rank by rank, with the
// traced parameters, and spins for the traced computation before each call. All C text lives
// in templates/c/ (the skeleton, the runtime in runtime/, one snippet per kind of statement and
// MPI call, and the few expression forms); this file decides what goes into them: which values,
// which rank conditions, how large the runtime's tables must be, and the indentation.
//
// Values. Parameters are expressions over the rank and the loop state (Expr): constants, peers
// relative to the rank (`(rank + 1) % nranks`), choices by rank group (a `?:` chain over rank
// conditions; at fixed scale, among more than kMaxRankChoices groups of plain values, a table
// indexed by the rank, and for a vector parameter one table whose rows are the ranks), cycles
// over a statement's executions (a table indexed by the statement's execution counter) and
// first-iteration choices (a test of the loop variable). Element counts go through msg_count()
// (--msg-scale), computation through compute() (--compute-scale). Peers and roots are world
// ranks in the model; on another communicator they are translated at run time by comm_rank().
// Requests are named by recency as in the trace (recent_request(k), k = 10000 - offset).
//
// The helpers (compute, msg_count, the request ring, the tables of communicators, ...) are the
// runtime, real C in templates/c/runtime/ (gen/CRuntime.h), the same for every trace: the
// benchmark starts with its text, or includes its header (--runtime=separate), and tells it the
// sizes of its tables in a struct tracegen_trace; what the calls need (Needs, below) says
// which helpers they use, for the comment above that struct.
//
// This header is the C backend's own (gen/Backends.h has its factory, createCBackend): the
// writer class and the helpers more than one of its files use. The writer's methods are
// defined in the files of gen/c/ by family: Program.cpp (the skeleton, parts, runtime
// helpers, the factory), Statements.cpp (the walker's hooks: guards, loops, computation,
// declarations), Requests.cpp (local request arrays), PointToPoint.cpp, Collectives.cpp,
// Communicators.cpp (communicators, groups, topologies), OneSidedIO.cpp (RMA windows and
// MPI-IO), Values.cpp (value styles, expressions, tables, peers, counts and bytes) and
// ScaleFree.cpp (formulas over the scale, grid classes and peers).
#pragma once

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <functional>
#include <kainjow/mustache.hpp>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "ir/Diagnostics.h"
#include "gen/Backends.h"
#include "gen/RankSetText.h"
#include "gen/CRuntime.h"
#include "gen/GridClasses.h"
#include "gen/ProgramWalker.h"
#include "ir/Limits.h"
#include "passes/RankRanges.h"

namespace tracegen::gen::cgen {

namespace mus = kainjow::mustache;

// Text helpers (gen/c/Program.cpp).
mus::data flag(bool on);

// `(a || b)` -> `a || b` where the context supplies the parentheses (a guard's condition, the
// only argument of compute(), msg_count(), comm_of(), group_of()).
std::string withoutParens(const std::string& s);

std::string ensureNewline(std::string s);

// Text that goes into a C comment must not close it.
std::string commentSafe(std::string_view s);

// Value helpers (gen/c/Values.cpp).
std::int64_t asInt(double v);

// Microseconds to the nanosecond, without trailing zeros.
std::string formatUs(double us);

// A value per rank and nothing else: a constant, or a choice by rank among such values.
bool plainPerRank(const Expr& e);

// A choice by rank that is written as a table (kMaxRankChoices).
bool tabulatedByRank(const Expr& e);

// The value of a plainPerRank expression for one rank; none for a rank outside its groups.
std::optional<double> valueOfRank(const Expr& e, Rank rank);

// Every value a constant can give: a constant progression's values are its positions'.
template <typename F>
void forEachConst(const Expr& e, F&& f) {
  if (e.kind == Expr::Kind::Const) f(e.value);
  if (e.constantProgression()) {
    for (std::int64_t k = 0; k < e.progressionLength(); ++k) f(e.progressionValue(k));
    return;
  }
  for (const auto& c : e.children) forEachConst(c, f);
}

// What a piece of generated C needs from the runtime and from the file's declarations: the
// helpers it calls (for the comment above struct tracegen_trace), the sizes of the runtime's
// tables, the status variables it names (`&status`, `statuses`), the derived datatypes, and
// for a scale-free program the conditions its formulas need and its message sizes.
//
// The rule of this backend: every lowering (a value, a call, a statement, a body) returns its
// text together with what that text needs (Lowered), and whoever places the text merges the
// needs with it (`|=`, Needs::take), up to the program, whose skeleton declares from the merged
// needs alone. No printer writes the writer's state, and nothing reads the generated text back
// to decide what to declare. (The writer's own state is what analyses computed before the walk,
// local request arrays, buffer swaps, and the statement being assembled, cur_.)
struct Lowered;

struct Needs {
  bool compute = false, counts = false, displs = false;
  bool status = false;  // names `&status`
  bool computeSending = false, computeSendingBlocks = false;  // compute_sending(), _blocks()
  bool swapBuffers = false;  // calls that send what receives wrote (swap_buffers)
  std::int64_t statuses = 0;  // the longest `statuses` array it names
  bool newRequest = false, recentRequest = false, requestLists = false;
  bool persistent = false;  // MPI_Start, MPI_Startall
  bool messages = false;    // matched probes
  bool requestArrays = false;  // count arrays of nonblocking vector collectives (request_ints)
  bool byteDispls = false;     // MPI_Alltoallw's displacements in bytes (pack_byte_displs)
  bool recvSlices = false;     // nonblocking receives write recv_slice(), one slice each
  bool boundSlices = false;    // MPI_Irecv's slices are bound to its request (recv_slice_bound)
  bool aintDispls = false;     // MPI_(I)neighbor_alltoallw's MPI_Aint displacements (pack_aint_displs)
  bool requestAints = false;   // MPI_Ineighbor_alltoallw's, kept with the request (request_aints)
  std::int64_t ring = 1;  // the farthest back a request is named (recent_request(k))
  bool newComm = false, newCommAt = false, commSlot = false, commOf = false, commRank = false;
  std::int64_t maxCommId = 999;
  std::int64_t maxUserOp = 999;  // highest user-defined reduction operator used
  bool newGroup = false, groupSlot = false, groupOf = false;
  std::int64_t maxGroupId = 999;
  bool bsend = false;
  bool pollIdle = false;         // polling tests make the application's failed polls (poll_idle)
  bool windows = false;          // one-sided communication
  bool winCreate = false, winAllocate = false, winFree = false;
  std::int64_t maxWinId = 999;
  bool files = false;  // MPI-IO
  std::int64_t maxFileId = 999;
  std::int64_t largestBytes = 0;
  std::map<std::int64_t, const Datatype*> derived{};  // by id
  bool scaleHelpers = false;  // scale-free: iroot, ipow, ilog2, pow_real, log2_real
  bool gridRank = false;      // scale-free: grid_rank() for peers across a periodic edge
  // Scale-free: the conditions under which the formulas are whole (C condition, in words), in
  // the order first needed, and the byte counts of the messages (scale_problem(),
  // largest_message_bytes_now()).
  std::vector<std::pair<std::string, std::string>> scaleConditions{};
  std::vector<std::string> byteFormulas{};

  // Flags or, sizes take the larger, the datatypes and the scale-free lists join (first first).
  Needs& operator|=(const Needs& o);
  void scaleCondition(const std::string& cond, const std::string& words);
  // The text of `part`, whose needs join these: `d.set("comm", needs.take(comm(x)))`.
  std::string take(Lowered part);
};

// Generated text and what it needs. A text that needs nothing converts from its string.
struct Lowered {
  std::string text;
  Needs needs;
  Lowered(std::string t = {}, Needs n = {}) : text(std::move(t)), needs(std::move(n)) {}  // NOLINT: implicit
};

inline std::string Needs::take(Lowered part) {
  *this |= part.needs;
  return std::move(part.text);
}

// How constants of one kind of value are written, and the element type of a table of them.
struct Style {
  std::string tableType;
  std::function<Lowered(double)> leaf;
  bool constant = true;  // leaves are constant expressions (a table of them can be static)
};

// A table declared by name before the call: a cycle of constants over a statement's
// executions, or the values of a parameter by rank (`n` ranks). A vector parameter's table by
// rank has a row per rank (`rows`, each `columns` values), the row of rank r being the vector
// that rank passes.
struct Table {
  std::string qualifier, type, name, values;
  std::size_t n = 0;
  std::size_t columns = 0;            // a table of rows: the length of each
  std::vector<std::string> rows;      // a table of rows: each row's values, by rank
  bool scalar = false;                // one variable, `values` its initial value (a counter)
};

// A choice by rank among more groups than this, of values no formula explains (constants, not
// peers relative to the rank, not cycles), is a table indexed by rank rather than a `?:` chain:
// a chain grows by a condition per group, and per element of a vector parameter, so a
// recorded MPI_Alltoallv whose counts differ for every pair of ranks gave P conditions per
// count (P^2 per call); the table is P values per parameter, or P rows for a vector. Up to this
// many groups the chain spells the rank sets (`rank % 2 == 1 ? ... : ...`), which says more.
constexpr std::size_t kMaxRankChoices = 4;

// Vectors up to this long read best spelled out (`{ 0, 1, 3, 6 }`); longer constant ones are a
// loop (one value for every element) or pack_displs (displacements laid out one after another).
constexpr std::size_t kShortVector = 8;

// Where an expression is rendered: the statement's execution counter, the tables the
// statement declares (none for loops: their cycles stay inline), and the ranks that execute
// it, for which its peers are spelled (a choice by rank narrows them to each group's).
struct Scope {
  std::string counter;
  std::string name;  // of the parameter, names its table
  std::vector<Table>* tables = nullptr;
  RankList ranks;
};

// The C writer: the program walker's hooks (gen/ProgramWalker.h) write the measured region;
// render() assembles MPI_Init, that region, MPI_Finalize and the skeleton.
class CWriter : public ProgramWalker {
 public:
  // (defined in gen/c/Program.cpp)
  CWriter(const Program& p, const GenOptions& o);
  using ProgramWalker::render;  // templates; render() below writes the program

  std::string render();

 private:
  // Where the measured statements [first, last) of the body split into parts (partCuts: the
  // boundaries, first and last included; just those two for a program of one part). A part
  // holds about kCallsPerPart call statements, and never cuts a run of requests kept in a
  // local array (findLocalRequests): the array is declared where its run begins. Scale-free
  // programs stay whole (short by nature).
  static constexpr std::size_t kCallsPerPart = 250;
  static std::size_t callCount(const Stmt& s);
  void localArraysOf(const Stmt& s, std::set<int>& out) const;
  std::vector<std::size_t> partCuts(const std::vector<Stmt>& body, std::size_t first, std::size_t last) const;
  static std::pair<std::int64_t, std::int64_t> eventIds(const std::vector<Stmt>& body, std::size_t from, std::size_t to);

  static bool isCall(const Stmt& s, OpKind k) { return s.kind == Stmt::Kind::Call && opInfo(s.call.op).kind == k; }
  RankList all() const { return RankList::all(program_.numRanks); }

  // --- statements: the walker's hooks --------------------------------------------------

  std::string_view backendName() const override { return "C"; }

  // The text of statements, per body being walked (the measured region, each loop body): the
  // runs done, the run being written (statements with the same ranks share one condition),
  // and what the statements emitted so far need.
  struct Frame {
    std::string text, run;
    Needs needs;
    bool firstRun = true, lastLoop = false;
    std::size_t statements = 0;
  };
  std::vector<Frame> frames_;

  // (defined in gen/c/Statements.cpp)
  Lowered walked(const std::vector<Stmt>& stmts, std::size_t from, std::size_t to, const RankList& outer);
  void beginGuard(const RankList&, const RankList&, bool firstRun) override;
  void endGuard(const RankList& ranks, const RankList& outer) override;
  void emit(const Lowered& statement, bool isLoop);
  std::string guarded(const RankList& ranks, const RankList& outer, const std::string& text);
  std::string rankCondition(const RankList& ranks);

  std::string loopVar(int id) const { return fmt::format("i{}", id); }

  void beginLoop(const Stmt&, const RankList&) override { frames_.emplace_back(); }

  void endLoop(const Stmt& s, const RankList&) override;
  std::string eventName(const Event& e) const;
  std::string label(const CallStmt& c) const;
  std::string renderInit(const std::vector<Stmt>& body, std::size_t count);

  // --- calls -------------------------------------------------------------------------------

  struct CallCtx {
    const CallStmt& c;
    std::string counter;
    std::vector<Table>* tables;
    const RankList& ranks;  // that execute the call
  };
  static Scope at(const CallCtx& x, std::string name) { return Scope{x.counter, std::move(name), x.tables, x.ranks}; }

  const Expr& need(const CallStmt& c, Param p) const;

  // The call statement being written: its execution counter (if a value cycles), the tables it
  // declares, and the statement template's data (computation, call).
  struct Current {
    RankList ranks;  // that execute the call
    std::string counter;
    std::vector<Table> tables;
    mus::data inner;
    Needs needs;              // of everything the statement's text holds
    std::string pollCompute;  // a polling test's computation per poll (see pollsPerExecution)
    std::string compute;      // the computation before the call (compute()'s argument)
    // The count and datatype of the call's message (message()), and, for a call that sends them
    // from send_buf, the arguments compute_sending() takes (see sendsMessage()).
    std::string count, datatype, comm;
    std::string sending;
    bool sendingBlocks = false;  // one message per member of the communicator (MPI_Alltoall)
  };
  std::unique_ptr<Current> cur_;
  CallCtx ctx(const CallStmt& c) { return CallCtx{c, cur_->counter, &cur_->tables, cur_->ranks}; }
  void setCall(Lowered call);
  void beginCall(const CallStmt& c, const RankList& ranks) override;
  void compute(const CallStmt& c, const RankList&) override;

  // Calls that send what the rank's receives wrote (`fromrecv`) swap send_buf and recv_buf
  // first (swap_buffers(), templates/c/runtime), unless a transfer may be pending then: a
  // pending send (or one-sided transfer, or nonblocking collective) may read send_buf, which
  // the swap makes the buffer blocking receives write. Such programs keep their buffers.
  bool buffersMaySwap_ = false;
  static bool hasPendingSends(const std::vector<Stmt>& body);
  void swapBuffers(const CallCtx& x);
  void sendsMessage(bool blocks = false);
  void setComputeCall();
  double pollsPerExecution(const CallStmt& c) const;
  void endCall(const CallStmt& c, const RankList&) override;
  std::string declarations(const std::vector<Table>& tables);

  // --- local request arrays -----------------------------------------------------------------
  //
  // The trace names requests by recency, and the ring replays that (new_request(),
  // recent_request(k), take_requests()). Where a wait's requests are known statically the
  // benchmark names them as an MPI programmer would: a run of statements of one statement list
  // (one rank set) whose Isend/Irecv-family calls make requests that MPI_Wait/MPI_Waitall calls
  // of the same run complete, every one of them, by constant offsets within the run, becomes
  // `MPI_Request requestsN[n];` with `&requestsN[i]` in the calls and `requestsN` (or
  // `&requestsN[i]`) in the waits. As the ring numbers requests over the whole run of a rank,
  // the benchmark uses one way or the other throughout: local arrays only if every statement
  // that makes or names a request belongs to such a run (docs/c-backend.md, "Local request
  // arrays"); otherwise the ring everywhere, as before.
  struct LocalRequest {
    int array = 0;                     // requestsN
    std::vector<std::size_t> indices;  // made: its index; completed: the indices, in order
    std::string slot;                  // made in a loop of the run: `&requestsN[base + m * iK]`
    bool single = false;               // the run makes one request: `MPI_Request requestN;`
  };
  // The array of a run, declared before the run's first statement (a call or a loop).
  struct LocalArray {
    int array = 0;
    std::size_t size = 0;
    std::string completedBy;  // the label of the run's last completion
    std::size_t completions = 1;  // the waits of the run
  };
  std::map<const CallStmt*, LocalRequest> localRequests_;
  std::map<const void*, LocalArray> localArrays_;  // by the run's first CallStmt or loop Stmt
  std::size_t localReceives_ = 0;  // nonblocking receives of the largest run (recv_slices)

  // (defined in gen/c/Requests.cpp)
  static bool makesLocalRequest(const CallStmt& c);
  static bool involvesRequests(const CallStmt& c);
  static bool involvesRequests(const Stmt& s);
  static bool makesLocalRequestsOnly(const Stmt& s);
  static std::optional<std::size_t> localIndex(const Expr* offset, std::size_t made);
  void findLocalRequests();
  bool findLocalRequests(const std::vector<Stmt>& body, int& arrays);
  const LocalRequest* localRequest(const CallStmt& c) const;
  static std::string localName(const LocalRequest& r);
  static std::string localSlot(const LocalRequest& r, std::size_t index);
  Lowered localRequestMade(const CallStmt& c, Lowered call);
  void declareLocalArray(const void* first);
  void loop(const Stmt& s, const RankList& ranks) override;
  void call(const CallStmt& c, const RankList& ranks) override;
  Lowered localCompletion(const CallStmt& c);

  // --- operation families: each sets the call's text --------------------------------------

  // (defined in gen/c/Statements.cpp)
  void lifecycle(const CallStmt& c, const RankList&) override;
  void pointToPoint(const CallStmt& c, const RankList&) override;
  void completion(const CallStmt& c, const RankList&) override;
  void collective(const CallStmt& c, const RankList&) override;
  void nonblockingCollective(const CallStmt& c, const RankList&) override;
  void communicator(const CallStmt& c, const RankList&) override;
  void persistent(const CallStmt& c, const RankList&) override;
  void matchedProbe(const CallStmt& c, const RankList&) override;
  void oneSided(const CallStmt& c, const RankList&) override;
  void fileIo(const CallStmt& c, const RankList&) override;
  void opaque(const CallStmt& c, const RankList&) override;
  static mus::data callData(const CallStmt& c);

  // (defined in gen/c/PointToPoint.cpp)
  Lowered pointToPointText(const CallCtx& x, mus::data& d);
  Needs message(const CallCtx& x, mus::data& d);
  Needs receiveSide(const CallCtx& x, mus::data& d);
  Needs pollUntil(const CallCtx& x, mus::data& d, const char* condition);
  Lowered waitOne(const CallCtx& x, mus::data& d);
  Lowered persistentCall(const CallCtx& x, mus::data& d);
  Lowered matchedCall(const CallCtx& x, mus::data& d);
  Lowered waitMany(const CallCtx& x, mus::data& d);

  // (defined in gen/c/Collectives.cpp)
  Lowered collectiveText(const CallCtx& x, mus::data& d);
  Lowered nonblockingCollectiveText(const CallCtx& x, mus::data& d);
  std::string setReduceOp(const CallCtx& x, mus::data& d, Needs& needs);
  Lowered neighborCollective(const CallCtx& x, mus::data& d);
  Needs alltoallwArrays(const CallCtx& x, mus::data& d);
  std::size_t vectorLength(const CallStmt& c, std::initializer_list<Param> ps) const;
  Lowered countVector(const CallCtx& x, Param p, std::size_t n, const Expr* fallback);

  Needs countArray(const CallCtx& x, mus::data& d, const std::string& key, Param p, std::size_t n,
                   const Expr* fallback);

  bool packedDispls(const CallCtx& x, Param displs, Param counts, const Expr* countsFallback, std::size_t n) const;
  std::optional<std::string> countRows(const CallCtx& x, Param p, std::size_t n, const Expr* fallback);

  // (defined in gen/c/Communicators.cpp)
  Lowered commCall(const CallCtx& x, mus::data& d);
  Lowered intList(const CallCtx& x, Param p, std::size_t minimum = 1);
  std::string ones(const CallCtx& x, Param p);
  Lowered scalar(const CallCtx& x, Param p, const char* fallback);
  Lowered topologyCall(const CallCtx& x, mus::data& d);
  Lowered groupCall(const CallCtx& x, mus::data& d);

  // (defined in gen/c/OneSidedIO.cpp)
  Lowered window(const CallCtx& x);
  Lowered assertion(const CallCtx& x);
  Needs buffer(const CallCtx& x, mus::data& d);
  Lowered oneSidedText(const CallCtx& x, mus::data& d);
  Lowered fileIoText(const CallCtx& x, mus::data& d);

  // --- values ------------------------------------------------------------------------------

  // (defined in gen/c/Values.cpp)
  Style intStyle() const;
  Style colorStyle() const;
  Style computeStyle() const;
  Style recencyStyle() const;

  // C's expression printer (gen/ProgramWalker.h's ExprPrinter): constants in the style of the
  // value, peers relative to the rank, `?:` chains over rank conditions, tables indexed by the
  // statement's execution counter, tests of a loop variable.
  class CExprPrinter;  // gen/c/Values.cpp

  Lowered expr(const Expr& e, const Style& style, const Scope& scope);
  static std::string tableName(const std::vector<Table>& tables, const std::string& base);
  std::optional<Lowered> rankTable(const Expr& e, const Style& style, const Scope& scope);
  std::optional<Lowered> rankByCallTable(const Expr& e, const Style& style, const Scope& scope);
  std::int64_t normalOffset(std::int64_t off) const;
  std::string rankOffset(const PeerOffset& peer);
  std::string rankOffsetTable(const std::string& table, bool wrap);
  Lowered count(const CallCtx& x, const Expr* e, const std::string& name);
  const Datatype& datatypeById(std::int64_t id, const CallStmt& c) const;
  static Lowered typeName(const Datatype& d);
  Lowered datatype(const CallCtx& x, const Expr& e, const std::string& name);

  static constexpr std::int64_t kMaxUserOps = 1000;
  // A reduction operator, and for a user-defined one the comment its call gets above it.
  struct ReduceOp {
    Lowered op;
    std::string comment;
  };
  static std::string withUserOpComment(const std::string& comment, std::string call);
  std::pair<std::string, std::string> builtinForUserOp(const CallCtx& x) const;
  ReduceOp reduceOp(const CallCtx& x, const Expr& e);
  Lowered comm(const CallCtx& x);
  Lowered group(const CallCtx& x, const Expr& e, const std::string& name);
  Lowered peer(const CallCtx& x, const Expr& e, const std::string& name);
  Lowered tag(const CallCtx& x, Param p, bool receive);
  Needs bufferNeeds(const CallStmt& c);

  // --- scale-free programs (Program::scaleFree, extrap/ScaleFree.h) --------------------------
  // Ranks are position classes of the process grid, values formulas of the scale. The text of
  // a formula is C's own arithmetic on nranks and the grid's extents px, py, pz; each integer
  // formula also says when it is whole (`240 / px` needs px dividing 240), which
  // scale_problem() checks before the benchmark communicates.

  // (defined in gen/c/ScaleFree.cpp)
  static std::string_view scaleVarName(ScaleFormula::Var v);
  static std::string scaleVarWords(ScaleFormula::Var v);
  Lowered integerTerm(const ScaleFormula& f);
  Lowered formulaText(const ScaleFormula& f);
  Lowered realFormulaText(const ScaleFormula& f);
  std::string classCondition(const RankList& classes);
  Lowered gridPeerText(const GridStep& g);
  Lowered relationPeerText(GridRelation rel, const std::string& counter);
  Lowered blockText(const BlockTerm& t);
  std::string blockLargestText(const BlockTerm& t);
  static void formulaLeaves(const Expr& e, std::vector<Expr>& out);
  Needs scaleFreeBufferNeeds(const CallStmt& c);

  // --- the file ----------------------------------------------------------------------------

  // (defined in gen/c/Program.cpp)
  std::string skeleton(const std::string& init, const std::string& measured, const std::string& finalize,
                       const std::string& parts, Needs needs);

  std::string gridOrderText() const;
  std::string scaleBlock(const Needs& needs);
  static std::string collapseBlankLines(const std::string& text);
  std::string sourceName() const;
  static std::vector<std::string> runtimeHelpers(const Needs& needs);

  std::map<std::int64_t, const Datatype*> datatypes_;
  std::map<std::string, std::string> rankConditions_;  // RankList::str() -> cRankCondition
};

}  // namespace tracegen::gen::cgen
