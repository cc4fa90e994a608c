// The benchmark program, independent of the output language.
//
// The traversal (gen/Traversal.cpp) turns a lowered trace into this model and every backend
// renders it: one SPMD program in which each statement names the ranks that execute it.
// Each rank executes the statements that name it, in textual order, and nothing else, so the
// program is correct whenever every rank's statements appear in that rank's own order; the
// traversal merges the loop trees of rank classes so that ranks that loop together share one
// loop and differences become guards (rank sets) and expressions (per rank, per execution,
// first iteration or not).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gen/GridRelation.h"
#include "gen/GridStep.h"
#include "ir/Trace.h"

namespace tracegen::gen {

// A quantity of a scale-free benchmark (extrap/ScaleFree.h) as a function of the scale it runs
// at: c0 + c1 * x^(num/den) * log2(x)^logPower, x the rank count or one extent of the process
// grid. Integer quantities (counts, trip counts, tags) have rational coefficients and are
// whole at every scale the benchmark accepts; times have real ones.
struct ScaleFormula {
  // The rank count, the grid's extents, or (colours of a split: rows, columns, planes) the
  // calling rank's own grid coordinates x, y, z.
  enum class Var : std::uint8_t { P, Px, Py, Pz, X, Y, Z };
  Var var = Var::P;
  int num = 0, den = 1, logPower = 0;  // the term; num = 0 and logPower = 0: the constant 1
  bool integer = true;
  std::int64_t c0num = 0, c0den = 1, c1num = 0, c1den = 1;  // integer quantities
  double c0 = 0, c1 = 0;                                    // times
  bool operator==(const ScaleFormula&) const = default;
};

// A count of a scale-free benchmark that follows how the code splits N points over one
// dimension of the process grid (extrap/BlockDistribution.h): a + b * block(N, p_d, c_d), where
// block(N, p, c) = floor(N / p) + (c < N mod p) is the points of the rank at coordinate c of p
// (in 1-D p is the rank count and c the rank). Its value depends on the calling rank's own
// coordinate, not only on its position class; it is defined where every rank has a point
// (N >= p_d), which the benchmark checks before it communicates.
struct BlockTerm {
  int dim = 0;              // 0: x (the rank in 1-D), 1: y, 2: z
  std::int64_t points = 0;  // N
  std::int64_t a = 0, b = 0;
  // The one definition of the value, for the tests and the extrapolation's checks: the rank at
  // coordinates `coord` of a grid of extents `ext`.
  std::int64_t at(const std::array<std::int64_t, 3>& ext, const std::array<std::int64_t, 3>& coord) const;
  bool definedOn(const std::array<std::int64_t, 3>& ext) const { return points >= ext[static_cast<std::size_t>(dim)]; }
  bool operator==(const BlockTerm&) const = default;
};

// A peer of a scale-free benchmark is a GridStep (gen/GridStep.h): the neighbour one step away
// on the process grid; or, where each rank of a position class has a peer of its own, a
// GridRelation (gen/GridRelation.h): arithmetic on the rank and the extents.

// A value the benchmark computes at run time from the calling rank and the loop state.
struct Expr {
  enum class Kind {
    Const,           // value
    RankOffset,      // (rank + offset) mod numRanks: a peer stored relative to the caller (spelled per
                     // statement: gen/RankSetText.h peerOffset)
    ByRank,          // children[i] for the ranks of groups[i] (the groups partition the statement's ranks)
    ByExecution,     // children[k mod n] at the statement's k-th execution by the rank (k from 0)
    FirstIteration,  // children[0] in the first iteration of loop `loop` (its variable is 0), else children[1]
    // Scale-free programs only (Program::scaleFree): the forms below depend on the scale the
    // benchmark runs at, so eval() cannot give their value.
    Formula,         // formula: a function of the rank count and the grid's extents
    GridPeer,        // grid: the rank one grid step away from the caller
    Progression,     // children[0] + children[1] * (k mod children[2]) at the k-th execution
    // (rank + children[0] + children[1] * (k mod children[2])) mod numRanks at the k-th execution: a
    // peer that counts through the ranks, as a shift exchange's (r + i) mod P for i = 1 .. P-1.
    ProgressionPeer,
    RelationPeer,    // relation: the caller's peer at step k mod (its steps) at the k-th execution
    Block,           // block: a + b * block(N, p_d, c_d) of the caller's coordinate c_d
    // A compute time that drifts over calls (ComputeTime::calls): children[i] for the calls of
    // index [firsts[i], firsts[i+1]) (the last open-ended), the index counting from 0 the times
    // the rank takes this value (a counter of its own, as the recorder counted the samples of
    // one histogram, not the statement's executions). `value` is their mean: what eval(),
    // atExecution() and backends without counters (coNCePTuaL) take, so for them it is
    // invariant over executions.
    ByCall,
  };
  Kind kind = Kind::Const;
  double value = 0;
  std::int64_t offset = 0;
  std::vector<RankList> groups;
  int loop = -1;
  std::vector<Expr> children;
  ScaleFormula formula;  // Kind::Formula
  GridStep grid;         // Kind::GridPeer
  std::vector<std::int64_t> firsts;  // Kind::ByCall
  GridRelation relation = GridRelation::RowXor;  // Kind::RelationPeer
  BlockTerm block;                               // Kind::Block

  static Expr constant(double v) { return Expr{Kind::Const, v, 0, {}, -1, {}, {}, {}, {}, {}, {}}; }
  static Expr rankOffset(std::int64_t off) { return Expr{Kind::RankOffset, 0, off, {}, -1, {}, {}, {}, {}, {}, {}}; }
  static Expr byRank(std::vector<RankList> groups, std::vector<Expr> children) {
    return Expr{Kind::ByRank, 0, 0, std::move(groups), -1, std::move(children), {}, {}, {}, {}, {}};
  }
  static Expr byExecution(std::vector<Expr> cycle) {
    return Expr{Kind::ByExecution, 0, 0, {}, -1, std::move(cycle), {}, {}, {}, {}, {}};
  }
  static Expr firstIteration(int loop, Expr first, Expr rest) {
    return Expr{Kind::FirstIteration, 0, 0, {}, loop, {std::move(first), std::move(rest)}, {}, {}, {}, {}, {}};
  }
  static Expr scaled(const ScaleFormula& f) { return Expr{Kind::Formula, 0, 0, {}, -1, {}, f, {}, {}, {}, {}}; }
  static Expr gridPeer(const GridStep& g) { return Expr{Kind::GridPeer, 0, 0, {}, -1, {}, {}, g, {}, {}, {}}; }
  static Expr progression(Expr start, Expr step, Expr length) {
    return Expr{Kind::Progression, 0, 0, {}, -1, {std::move(start), std::move(step), std::move(length)}, {}, {}, {}, {}, {}};
  }
  static Expr progressionPeer(Expr start, Expr step, Expr length) {
    Expr e = progression(std::move(start), std::move(step), std::move(length));
    e.kind = Kind::ProgressionPeer;
    return e;
  }
  static Expr relationPeer(GridRelation r) {
    Expr e = gridPeer({});
    e.kind = Kind::RelationPeer;
    e.relation = r;
    return e;
  }
  static Expr blockOf(const BlockTerm& b) {
    Expr e = gridPeer({});
    e.kind = Kind::Block;
    e.block = b;
    return e;
  }
  static Expr byCall(std::vector<std::int64_t> firsts, std::vector<Expr> values, double mean) {
    return Expr{Kind::ByCall, mean, 0, {}, -1, std::move(values), {}, {}, std::move(firsts), {}, {}};
  }
  bool isConst() const { return kind == Kind::Const; }
  // A progression of constants: a fixed-scale list of values with one stride (gen/Traversal.cpp,
  // listExpr), whose value at execution k is start + step * (k mod length). A scale-free
  // progression's parts are formulas in the scale instead.
  bool constantProgression() const {
    return kind == Kind::Progression && children.size() == 3 && children[0].isConst() && children[1].isConst() &&
           children[2].isConst() && children[2].value >= 1;
  }
  // A constant progression's value at its k-th position (0 <= k < length).
  double progressionValue(std::int64_t k) const { return children[0].value + static_cast<double>(k) * children[1].value; }
  std::int64_t progressionLength() const { return static_cast<std::int64_t>(children[2].value); }
  // A constant progression as the cycle over executions of its values (for what selects values
  // by execution case by case: the coNCePTuaL backend, extrapolation across scales).
  Expr progressionCycle() const;
  // The expression with every ByCall replaced by its mean (a constant).
  Expr withoutDrift() const;
  // True if the value never changes from one execution to the next for a given rank.
  bool perExecutionInvariant() const;
  // The one evaluator of expressions (gen/Program.cpp), used by the traversal, the backends and
  // the tests: the value for a rank at its k-th execution (k from 0), with `firstIteration(loop)`
  // telling whether that loop is in its first iteration (absent: not).
  double eval(Rank rank, Rank numRanks, std::int64_t execution, const std::map<int, bool>& firstIteration) const;
  // The same expression at one execution: every ByExecution replaced by its choice at the k-th
  // execution and every FirstIteration by its choice under `firstIteration` (absent: not the
  // first), choices by rank kept. eval() of the result for any execution equals eval() of this
  // expression at `execution`.
  Expr atExecution(std::int64_t execution, const std::map<int, bool>& firstIteration) const;
  // The number of executions after which the value repeats (the least common multiple of the
  // ByExecution cycles; 1 for an invariant expression), and the loops whose first iteration it
  // tests.
  std::int64_t executionPeriod() const;
  void firstIterationLoops(std::vector<int>& loops) const;
  bool operator==(const Expr&) const = default;
};

struct Stmt;

// One MPI call (for every rank of `ranks`), preceded by its computation.
struct CallStmt {
  const Event* event = nullptr;  // origin: id, call sites, line
  Op op = Op::Init;
  // Parameters that the call has, by name. Peers (dest, source) are world ranks (Const),
  // offsets from the caller (RankOffset), or per-rank choices of those; `source` may be the
  // constant kAnySource only if wildcards were not resolved. Datatype values are ids in
  // Program::datatypes, communicator values ids in Program::comms, `op` reduction operators
  // in ScalaTrace numbering. `request` is a request offset as in the trace format
  // (9999 = the rank's most recent request-creating call).
  std::map<Param, Expr> params;
  // Vector parameters (requests, recvcounts, ...): one expression per element.
  std::map<Param, std::vector<Expr>> vectors;
  // Scale-free programs: vector parameters of one entry per rank whose entries are all this
  // count (an MPI_Alltoallv whose counts follow the data, spread evenly over the pairs:
  // extrap/Extrapolate.h DataCounts). Their displacements lay the blocks out one after another.
  std::map<Param, Expr> evenVectors;
  Expr computeUs;  // computation before the call, microseconds
  // Receives (and Sendrecv's receive) whose matched sends carry other sizes than were posted:
  // the bytes actually received (gen/ReceivedBytes.h). Absent: the posted size is received.
  std::optional<Expr> receivedBytes;
  // The statement's execution index as a function of the enclosing loops' variables, when it
  // runs exactly once per iteration of each enclosing loop with constant trip counts:
  // k = sum of multiplier * variable. Backends without counters (coNCePTuaL) need it for
  // ByExecution values.
  std::optional<std::vector<std::pair<int, std::int64_t>>> executionIndex;
};

struct LoopStmt {
  int id = 0;             // unique in the program; names the loop variable
  Expr iterations;        // per entry of the loop (ByExecution: cyclic per entry)
  std::vector<Stmt> body;
  const Event* head = nullptr;  // the event that heads this loop in the trace
};

struct Stmt {
  enum class Kind { Call, Loop };
  Kind kind = Kind::Call;
  RankList ranks;  // the ranks that execute this statement
  CallStmt call;   // Kind::Call
  LoopStmt loop;   // Kind::Loop
};

// A scale-free program (tracegen extrapolate without --ranks, extrap/ScaleFree.h) runs at any
// rank count its models cover. Its ranks are the position classes of a `dims`-D process grid
// (extrap/topology/Grid.h: index sum of pos_d * 3^d, pos 0 first, 1 interior, 2 last), so every
// RankList of the program is a set of classes and numRanks is 3^dims; values that change with
// the scale are Formula, GridPeer, RelationPeer, Block and Progression expressions.
struct ScaleFreeGrid {
  int dims = 1;
  bool descending = false;  // the grid's longest side is x (extrap/topology/Grid.h defaultGrid)
  std::string inputs;  // the scales it was inferred from, for the header ("P=9 (3x3), ...")
  // Every extent equal (px = py (= pz)): the inputs were all such grids (a code that runs on
  // square process counts only), so its formulas were fitted at such grids and hold there alone.
  bool square = false;
};

struct Program {
  Rank numRanks = 0;
  std::optional<ScaleFreeGrid> scaleFree;
  std::string source;  // the trace file it came from
  std::string origin;  // the trace's origin
  std::vector<Datatype> datatypes;
  std::vector<Communicator> comms;  // every communicator used; ids as in the trace
  std::vector<Stmt> body;           // MPI_Init first, MPI_Finalize last
  std::vector<std::string> notes;   // said in the generated program's header
  std::unordered_map<std::string, RankShape> rankShapes;  // RankList::str() -> shape (ir/RankShape.h)
  const Trace* trace = nullptr;     // for call-site names
  int loops = 0;                    // number of LoopStmts
  std::int64_t maxMessageBytes = 0; // largest single message (send or receive) of any call
  // The process around the MPI region (ir/Trace.h): the application's own start-up before
  // MPI_Init in microseconds (negative: not recorded), and the resident memory each rank gained,
  // in KiB, by rank (absent: not recorded).
  double beforeInitUs = -1;
  std::optional<Expr> memoryKb;
  double afterFinalizeUs = -1;  // after MPI_Finalize to the exit (rank 0's), negative: not recorded
  // Whether each receive was matched with its send (gen/ReceivedBytes.h); false when the trace
  // expands to more calls than the budget, and receives then name the size they posted.
  bool receivesMatched = false;
  // Messages sent that no receive takes, when the receives were matched (gen/ReceivedBytes.h).
  std::int64_t unreceivedMessages = 0;
  std::string firstUnreceived;
  // Collective events that leave out members of their communicator (passes/AlignCollectives.h:
  // calls align-collectives could not match across ranks), and the first, described.
  std::int64_t partialCollectives = 0;
  std::string firstPartialCollective;
  int firstPartialCollectiveLine = 0;  // its line in `source`
};

}  // namespace tracegen::gen
