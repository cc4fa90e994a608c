// Communication analysis on the compressed trace: per rank class and per loop, never per rank.
//
// Algorithm.
// 1. Rank classes. The ranks are partitioned by every rank list that shapes a rank's trace
//    (event lists, loop iteration and body-length groups, parameter value groups): the ranks of
//    a class run the same program, so one representative's program is the class's. Partition
//    refinement on rank lists costs what the lists' tuples cost, not the rank count.
// 2. Class programs. The representative's events are walked as a loop tree (ScalaTrace's
//    PRSDs: a head event, a body length, an iteration count per entry) into a flat list of
//    occurrences with the loops around them. Every point-to-point occurrence lands on a
//    channel (direction, communicator, peer offset, tag): offsets are what the trace stores for
//    relative peers (peer - rank mod P), so one channel describes every rank of the class.
//    Loops of different classes that are one loop of the source program (ScalaTrace heads a
//    loop with each group's first body event) get one id: loops at the same depth whose
//    spans of trace events overlap. Each channel is projected on its occurrences with the
//    loops that enclose them, written as a token string (`L<loop>x<trips>{E E}`); each
//    communicator's collectives likewise.
// 3. Matching. A send channel of class S with offset d reaches the ranks S + d (mod P); every
//    class R that holds some of them must receive on offset -d with the same projection: then
//    the k-th message of a sender is taken by the k-th receive of its receiver, in the same
//    iteration of the same loops, for every rank of both classes at once (MPI's
//    non-overtaking rule per sender, communicator and tag). A receive whose senders have no
//    such channel can never complete; a send nobody receives is left over (a warning). Every
//    class that belongs to a communicator must call the same sequence of collectives on it.
// 4. Deadlock. A wait-for graph over (class, occurrence) start and end nodes: program order;
//    a receive's completion after the matching send's start; a synchronous send's completion
//    after the matching receive's start; one shared node per collective of a communicator that
//    every member's start enters and every member's end leaves. A nonblocking receive completes
//    at the earliest blocking wait that can follow it (an earlier wait is a stronger
//    constraint, so no real cycle is lost). Because matched channels pair the same iteration
//    on both sides and program order only moves forward, a cycle of the unrolled program lies
//    within one iteration of each loop: the graph of the loop bodies, without back edges,
//    decides it. No cycle: the program completes for every rank at every scale. A cycle may be
//    real (a ring of blocking receives) or an artefact of the classes (a wavefront whose chain
//    of receives ends at the grid's edge): then the analysis says Undecided, and the caller
//    simulates, with every loop folded to a couple of iterations, which is exact because the
//    channels are aligned iteration by iteration.
// What the analysis does not model (MPI_Probe, persistent requests, the Test family, whose
// outcome the trace records poll by poll, peers that change from one execution to the next,
// wildcard receives) makes it Undecided, never wrong.
#include "passes/CommunicationAnalysis.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "ir/RankClasses.h"
#include "ir/RankCursor.h"

namespace tracegen {

namespace {

constexpr std::int64_t kAnyTag = -1;
constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

// The ranks r + d (mod P) for r in `list`, on the tuples.
RankList shiftRanks(const RankList& list, Rank d, Rank P) { return list.shifted(d, P); }

struct Undecidable {
  std::string why;
};

enum class Dir { Send, Recv };

struct ChannelKey {
  Dir dir = Dir::Send;
  std::int64_t comm = kCommWorld;
  Rank offset = 0;  // kAnySource for a wildcard receive
  std::int64_t tag = 0;
  auto operator<=>(const ChannelKey&) const = default;
};

// One channel's (or one communicator's collectives') occurrences with their enclosing loops.
struct Projection {
  std::string tokens;
  std::vector<std::size_t> occs;
  std::size_t depth = 0;  // loops of the open stack already written
};

struct Occ {
  std::size_t event = 0;
  std::optional<ChannelKey> sendKey, recvKey;
  std::string collToken;
  Op op = Op::Init;
  OpKind kind = OpKind::Init;
  bool blockingWait = false;
  bool sync = false;
  std::size_t loop = kNone;  // innermost enclosing loop (index into ClassProgram::loops)
  std::int64_t collComm = 0;
  std::size_t collIndex = kNone;  // position in its communicator's collective projection
};

struct LoopSpan {
  std::size_t begin = 0, end = 0;  // occurrences [begin, end)
  std::size_t parent = kNone;
  std::size_t depth = 0;
  std::size_t firstEvent = 0, lastEvent = 0;  // trace events of its head and its last body event
  std::string trips;                          // trip counts per entry, "250" or "2,1,1"
  std::size_t id = kNone;  // the loop of the source program, shared by the classes (see unifyLoops)
};

// The class's program in order: loop entries and exits around occurrences.
struct Step {
  enum Kind { Begin, End, At } kind;
  std::size_t index;  // loop for Begin/End, occurrence for At
};

struct ClassProgram {
  RankList ranks;
  Rank rep = 0;
  std::vector<Occ> occs;
  std::vector<LoopSpan> loops;
  std::vector<Step> steps;
  std::map<ChannelKey, Projection> channels;
  std::map<std::int64_t, Projection> collectives;  // by communicator
};

class ProgramBuilder {
 public:
  ProgramBuilder(const Trace& t, const RankList& cls) : trace_(t), P_(t.numRanks) {
    prog_.ranks = cls;
    prog_.rep = *cls.first();
  }

  ClassProgram build() {
    const Rank r = prog_.rep;
    for (std::size_t i = 0; i < trace_.events.size(); ++i) {
      const Event& e = trace_.events[i];
      if (!e.ranks.contains(r)) continue;
      Item it{i, {}};
      for (std::size_t k = 0; k < e.loops.size(); ++k) {
        const ValueGroup* iter = groupOf(e.loops[k].iter, r);
        const ValueGroup* mem = groupOf(e.loops[k].mem, r);
        if (!iter || !mem) break;
        it.levels.push_back({iter, mem});
      }
      items_.push_back(std::move(it));
    }
    sequence(0, items_.size());
    return std::move(prog_);
  }

 private:
  struct Item {
    std::size_t event;
    std::vector<std::pair<const ValueGroup*, const ValueGroup*>> levels;  // iter, mem
  };

  static const ValueGroup* groupOf(const std::vector<ValueGroup>& groups, Rank r) {
    for (const auto& g : groups)
      if (g.ranks.contains(r)) return &g;
    return nullptr;
  }

  [[noreturn]] void undecidable(const Event& e, const std::string& what) const {
    throw Undecidable{fmt::format("event {} ({}): {}", e.id, opName(e.op), what)};
  }

  void sequence(std::size_t j, std::size_t end) {
    while (j < end) {
      if (items_[j].levels.empty()) {
        occurrence(j);
        ++j;
      } else {
        j += loop(j, 0, end);
      }
    }
  }

  std::size_t loop(std::size_t h, std::size_t k, std::size_t limit) {
    const Event& head = trace_.events[items_[h].event];
    const auto [iter, mem] = items_[h].levels[k];
    if (mem->values.empty() || iter->values.empty()) undecidable(head, "a loop without a body length or trip count");
    if (std::adjacent_find(mem->values.begin(), mem->values.end(), std::not_equal_to<>()) != mem->values.end())
      undecidable(head, "a loop whose body length changes from one entry to the next");
    const std::int64_t span = mem->values.front();
    if (span < 1 || static_cast<std::size_t>(span) > limit - h) undecidable(head, "a loop body that does not fit");
    LoopSpan loopSpan;
    loopSpan.begin = prog_.occs.size();
    loopSpan.parent = loopStack_.empty() ? kNone : loopStack_.back();
    loopSpan.depth = loopStack_.size();
    loopSpan.firstEvent = items_[h].event;
    loopSpan.lastEvent = items_[h + static_cast<std::size_t>(span) - 1].event;
    for (std::size_t i = 0; i < iter->values.size(); ++i) loopSpan.trips += fmt::format("{}{}", i ? "," : "", iter->values[i]);
    const std::size_t loopIndex = prog_.loops.size();
    prog_.loops.push_back(std::move(loopSpan));
    prog_.steps.push_back({Step::Begin, loopIndex});
    loopStack_.push_back(loopIndex);
    const std::size_t end = h + static_cast<std::size_t>(span);
    std::size_t j = h;
    if (items_[h].levels.size() > k + 1) {
      j += loop(h, k + 1, end);
    } else {
      occurrence(h);
      ++j;
    }
    sequence(j, end);
    prog_.loops[loopIndex].end = prog_.occs.size();
    prog_.steps.push_back({Step::End, loopIndex});
    loopStack_.pop_back();
    return static_cast<std::size_t>(span);
  }

  // The one value a parameter takes for the class, if it has one.
  std::optional<std::int64_t> constant(const Event& e, Param p) const {
    const ParamValues* pv = e.param(p);
    if (!pv) return std::nullopt;
    const ValueGroup* g = pv->groupFor(prog_.rep);
    if (!g || g->values.empty()) return std::nullopt;
    if (std::adjacent_find(g->values.begin(), g->values.end(), std::not_equal_to<>()) != g->values.end())
      undecidable(e, fmt::format("parameter '{}' changes from one call to the next", paramName(p)));
    return g->values.front();
  }

  // The peer as an offset from the calling rank; kProcNull and kAnySource pass through.
  Rank offset(const Event& e, Param p) const {
    const ParamValues* pv = e.param(p);
    auto v = constant(e, p);
    if (!pv || !v) undecidable(e, fmt::format("no '{}' parameter", paramName(p)));
    if (*v == kProcNull || *v == kAnySource) return *v;
    if (pv->relative) return ((*v % P_) + P_) % P_;
    if (prog_.ranks.size() == 1) return ((*v - prog_.rep) % P_ + P_) % P_;
    undecidable(e, fmt::format("one absolute '{}' for {} ranks", paramName(p), prog_.ranks.size()));
  }

  void occurrence(std::size_t j) {
    const Event& e = trace_.events[items_[j].event];
    const std::size_t id = prog_.occs.size();
    Occ o;
    o.event = items_[j].event;
    o.op = e.op;
    o.kind = opInfo(e.op).kind;
    o.loop = loopStack_.empty() ? kNone : loopStack_.back();
    switch (o.kind) {
      case OpKind::Probe:
      case OpKind::SendInit:
      case OpKind::RecvInit:
      case OpKind::Start:
      case OpKind::RequestFree:
      case OpKind::MatchedProbe:
      case OpKind::MatchedRecv:
        undecidable(e, "probes and persistent requests are simulated");
      case OpKind::Wait:
      case OpKind::WaitAll:
        if (e.op == Op::Test || e.op == Op::Testall || e.op == Op::Testany || e.op == Op::Testsome)
          undecidable(e, "the Test family completes what the trace says it completed: simulated");
        o.blockingWait = true;
        break;
      case OpKind::Send:
      case OpKind::Isend:
      case OpKind::Recv:
      case OpKind::Irecv:
      case OpKind::Sendrecv: {
        const std::int64_t comm = constant(e, Param::Comm).value_or(kCommWorld);
        if (!trace_.worldPeers && comm != kCommWorld)
          undecidable(e, "peers in the numbering of a communicator (run resolve-comms first)");
        const std::int64_t tag = constant(e, Param::Tag).value_or(0);
        o.sync = e.op == Op::Ssend || e.op == Op::Issend;
        if (o.kind == OpKind::Send || o.kind == OpKind::Isend || o.kind == OpKind::Sendrecv) {
          const Rank d = offset(e, Param::Dest);
          if (d == kAnySource) undecidable(e, "a send to MPI_ANY_SOURCE");
          if (d != kProcNull) o.sendKey = ChannelKey{Dir::Send, comm, d, tag};
        }
        if (o.kind == OpKind::Recv || o.kind == OpKind::Irecv || o.kind == OpKind::Sendrecv) {
          const std::int64_t recvTag = o.kind == OpKind::Sendrecv ? constant(e, Param::RecvTag).value_or(tag) : tag;
          if (recvTag == kAnyTag) undecidable(e, "a receive with MPI_ANY_TAG");
          const Rank s = offset(e, Param::Source);
          if (s != kProcNull) o.recvKey = ChannelKey{Dir::Recv, comm, s, recvTag};
        }
        break;
      }
      case OpKind::Collective:
      case OpKind::ICollective:  // in the order of its communicator's collectives, by its start
      case OpKind::CommCreate:
      case OpKind::CommFree: {
        // MPI_Comm_create_group is collective over the group only: the communicator it makes.
        o.collComm = constant(e, e.op == Op::CommCreateGroup ? Param::NewComm : Param::Comm).value_or(kCommWorld);
        if (o.collComm == kCommSelf) break;
        o.collToken = fmt::format("C{}", opName(e.op));
        if (isRooted(e.op) && o.collComm == kCommWorld) o.collToken += fmt::format("@{}", constant(e, Param::Root).value_or(0));
        o.collToken += ';';
        break;
      }
      case OpKind::WinCollective:
      case OpKind::FileCollective: {
        // MPI_Win_create/allocate/free and MPI_Win_fence, MPI-IO's open, close and _all calls:
        // collective over the window's or file's communicator (`comm`), in order with its other
        // collectives.
        o.collComm = constant(e, Param::Comm).value_or(kCommWorld);
        if (o.collComm == kCommSelf) break;
        o.collToken = fmt::format("C{};", opName(e.op));
        break;
      }
      case OpKind::Rma:
      case OpKind::WinPassive:
      case OpKind::FileIo:
        // The origin's transfers and passive-target epochs match nothing: local calls.
        break;
      case OpKind::Opaque:
      case OpKind::OpaqueRequest:
        // Not modelled (one-sided, MPI-IO, ...): taken as a local call that neither blocks nor
        // matches anything; waits on an opaque request find it complete.
        break;
      default:
        break;
    }
    prog_.steps.push_back({Step::At, id});
    prog_.occs.push_back(std::move(o));
  }

  const Trace& trace_;
  const Rank P_;
  ClassProgram prog_;
  std::vector<Item> items_;
  std::vector<std::size_t> loopStack_;  // indices of the open loops
};

// Loops of different classes that are one loop of the source program get one id: ScalaTrace
// heads a loop, per rank group, with the first body event of the group, so the same loop has
// different heads (the first row of a grid starts its timestep with a receive from the south,
// the others from the north). Loops at the same depth, inside the same loop, whose spans of
// trace events overlap are one. A class with two sibling loops that would become one (it runs
// them one after the other where another class interleaves them) cannot be paired iteration by
// iteration: undecidable.
void unifyLoops(std::vector<ClassProgram>& programs) {
  struct Ref {
    std::size_t cls, loop;
  };
  std::vector<Ref> refs;
  std::vector<std::size_t> parent;
  std::map<std::pair<std::size_t, std::size_t>, std::size_t> global;
  for (std::size_t c = 0; c < programs.size(); ++c)
    for (std::size_t l = 0; l < programs[c].loops.size(); ++l) {
      global[{c, l}] = refs.size();
      refs.push_back({c, l});
      parent.push_back(refs.size() - 1);
    }
  std::function<std::size_t(std::size_t)> find = [&](std::size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  auto span = [&](const Ref& r) -> const LoopSpan& { return programs[r.cls].loops[r.loop]; };
  auto enclosing = [&](const Ref& r) -> std::size_t {
    const std::size_t p = span(r).parent;
    return p == kNone ? kNone : find(global.at({r.cls, p}));
  };
  std::size_t maxDepth = 0;
  for (const auto& r : refs) maxDepth = std::max(maxDepth, span(r).depth);
  for (std::size_t depth = 0; depth <= maxDepth && !refs.empty(); ++depth) {
    std::vector<std::size_t> level;
    for (std::size_t i = 0; i < refs.size(); ++i)
      if (span(refs[i]).depth == depth) level.push_back(i);
    std::sort(level.begin(), level.end(), [&](std::size_t a, std::size_t b) {
      return span(refs[a]).firstEvent < span(refs[b]).firstEvent;
    });
    std::size_t runFirst = kNone, runEnd = 0;
    for (std::size_t i : level) {
      const LoopSpan& s = span(refs[i]);
      if (runFirst != kNone && s.firstEvent <= runEnd) {
        if (enclosing(refs[i]) != enclosing(refs[runFirst]))
          throw Undecidable{"loops nest differently in different rank classes"};
        parent[find(i)] = find(runFirst);
        runEnd = std::max(runEnd, s.lastEvent);
      } else {
        runFirst = i;
        runEnd = s.lastEvent;
      }
    }
  }
  for (std::size_t c = 0; c < programs.size(); ++c) {
    std::set<std::pair<std::size_t, std::size_t>> seen;  // (enclosing id, id)
    for (std::size_t l = 0; l < programs[c].loops.size(); ++l) {
      const std::size_t id = find(global.at({c, l}));
      programs[c].loops[l].id = id;
      if (!seen.insert({enclosing({c, l}), id}).second)
        throw Undecidable{fmt::format("ranks {} run two loops one after the other where other ranks run them as one",
                                      programs[c].ranks.pretty(8))};
    }
  }
}

// Writes each channel's and each communicator's projection of a class program.
void project(ClassProgram& p) {
  std::vector<std::size_t> open;  // loops entered, outermost first
  auto emit = [&](Projection& proj, const std::string& token, std::size_t occ) {
    for (std::size_t i = proj.depth; i < open.size(); ++i) {
      const LoopSpan& l = p.loops[open[i]];
      proj.tokens += fmt::format("L{}x{}{{", l.id, l.trips);
    }
    proj.depth = open.size();
    proj.tokens += token;
    proj.occs.push_back(occ);
  };
  for (const Step& step : p.steps) {
    if (step.kind == Step::Begin) {
      open.push_back(step.index);
      continue;
    }
    if (step.kind == Step::End) {
      const std::size_t depth = open.size();
      auto close = [&](Projection& proj) {
        if (proj.depth == depth) {
          proj.tokens += '}';
          --proj.depth;
        }
      };
      for (auto& [key, proj] : p.channels) close(proj);
      for (auto& [comm, proj] : p.collectives) close(proj);
      open.pop_back();
      continue;
    }
    Occ& o = p.occs[step.index];
    if (o.sendKey) emit(p.channels[*o.sendKey], "E", step.index);
    if (o.recvKey) emit(p.channels[*o.recvKey], "E", step.index);
    if (!o.collToken.empty()) {
      Projection& proj = p.collectives[o.collComm];
      o.collIndex = proj.occs.size();
      emit(proj, o.collToken, step.index);
    }
  }
}

// The earliest blocking wait that can complete a request made at occurrence i: the next one in
// its loop body, else (the wait may be in the next iteration) the first one of the body, else
// the same search in the enclosing body after the loop.
std::size_t completingWait(const ClassProgram& p, std::size_t i) {
  auto firstWait = [&](std::size_t from, std::size_t to) -> std::size_t {
    for (std::size_t j = from; j < to; ++j)
      if (p.occs[j].blockingWait) return j;
    return kNone;
  };
  std::size_t pos = i + 1;
  for (std::size_t loop = p.occs[i].loop;; loop = p.loops[loop].parent) {
    if (loop == kNone) return firstWait(pos, p.occs.size());
    const LoopSpan& span = p.loops[loop];
    if (auto w = firstWait(pos, span.end); w != kNone) return w;
    if (auto w = firstWait(span.begin, pos); w != kNone) return w;
    pos = span.end;
  }
}

std::string channelText(const Trace& t, const ClassProgram& p, const ChannelKey& k, const Projection& proj) {
  const Event& e = t.events[p.occs[proj.occs.front()].event];
  return fmt::format("event {} ({} at {}) on ranks {}", e.id, opName(e.op), t.siteLabel(e.site), p.ranks.pretty(8)) +
         (k.comm == kCommWorld ? "" : fmt::format(" on communicator {}", k.comm));
}

class Analysis {
 public:
  explicit Analysis(const Trace& t) : trace_(t), P_(t.numRanks) {}

  CommunicationVerdict run() {
    CommunicationVerdict v;
    try {
      buildPrograms();
    } catch (const Undecidable& u) {
      v.reason = u.why;
      return v;
    }
    v.classes = static_cast<std::int64_t>(programs_.size());
    for (const auto& p : programs_) v.channels += static_cast<std::int64_t>(p.channels.size());
    std::string undecided;
    auto note = [&](std::string why) {
      if (undecided.empty()) undecided = std::move(why);
    };
    for (const auto& p : programs_)
      for (const auto& [key, proj] : p.channels)
        if (key.offset == kAnySource) note(fmt::format("{} receives from MPI_ANY_SOURCE", channelText(trace_, p, key, proj)));
    if (!undecided.empty()) {
      v.reason = undecided;
      return v;
    }
    allocateNodes();
    bool aligned = true;
    // Receives: every sender class must send the same sequence.
    for (std::size_t r = 0; r < programs_.size(); ++r) {
      const ClassProgram& R = programs_[r];
      for (const auto& [key, proj] : R.channels) {
        if (key.dir != Dir::Recv) continue;
        const RankList senders = shiftRanks(R.ranks, key.offset, P_);
        const ChannelKey sendKey{Dir::Send, key.comm, (P_ - key.offset) % P_, key.tag};
        for (std::size_t s = 0; s < programs_.size(); ++s) {
          const ClassProgram& S = programs_[s];
          if (!senders.intersects(S.ranks)) continue;
          auto it = S.channels.find(sendKey);
          if (it == S.channels.end()) {
            aligned = false;
            if (v.definiteProblem.empty())
              v.definiteProblem = fmt::format("{} receives from offset {} (tag {}), but ranks {} never send to them",
                                              channelText(trace_, R, key, proj), signedOffset(key.offset), key.tag,
                                              RankList::intersect(senders, S.ranks).pretty(8));
            note("a receive that no rank sends to");
            continue;
          }
          if (it->second.tokens != proj.tokens) {
            aligned = false;
            note(fmt::format("{} and {} do not pair iteration by iteration", channelText(trace_, S, sendKey, it->second),
                             channelText(trace_, R, key, proj)));
            continue;
          }
          for (std::size_t k = 0; k < proj.occs.size(); ++k) {
            const std::size_t so = it->second.occs[k], ro = proj.occs[k];
            if (auto c = completion(r, ro); c != kNone) edge(start(s, so), c);
            if (S.occs[so].sync)
              if (auto c = completion(s, so); c != kNone) edge(start(r, ro), c);
          }
        }
      }
    }
    // Sends: a message that no receive takes is left over at the end.
    for (const auto& S : programs_) {
      for (const auto& [key, proj] : S.channels) {
        if (key.dir != Dir::Send) continue;
        const RankList receivers = shiftRanks(S.ranks, key.offset, P_);
        const ChannelKey recvKey{Dir::Recv, key.comm, (P_ - key.offset) % P_, key.tag};
        for (const auto& R : programs_) {
          if (!receivers.intersects(R.ranks) || R.channels.count(recvKey)) continue;
          const bool sync = S.occs[proj.occs.front()].sync;
          if (sync) {
            aligned = false;
            note("a synchronous send that no rank receives");
          }
          if (v.warnings.size() < 16)
            v.warnings.push_back({trace_.events[S.occs[proj.occs.front()].event].line, fmt::format("{} sends to offset {} (tag {}), but ranks {} never receive those messages: "
                                             "they are left over at the end",
                                             channelText(trace_, S, key, proj), signedOffset(key.offset), key.tag,
                                             RankList::intersect(receivers, R.ranks).pretty(8))});
        }
      }
    }
    // Collectives: every member class calls the same sequence on each communicator.
    std::set<std::int64_t> comms;
    for (const auto& p : programs_)
      for (const auto& [comm, proj] : p.collectives) comms.insert(comm);
    for (std::int64_t comm : comms) {
      std::optional<RankList> members;
      if (comm == kCommWorld) {
        members = RankList::all(P_);
      } else if (const Communicator* c = trace_.comm(comm)) {
        RankList all;
        for (const auto& inst : c->instances) all = RankList::unite(all, inst);
        members = std::move(all);
      }
      if (!members) {
        note(fmt::format("collectives on communicator {}, which the trace does not describe", comm));
        continue;
      }
      const Projection* reference = nullptr;
      std::size_t referenceClass = 0;
      for (std::size_t c = 0; c < programs_.size(); ++c) {
        const ClassProgram& p = programs_[c];
        if (!members->intersects(p.ranks)) continue;
        ++v.collectiveSequences;
        auto it = p.collectives.find(comm);
        if (it == p.collectives.end()) {
          if (v.definiteProblem.empty())
            v.definiteProblem = fmt::format("ranks {} belong to communicator {} but never call its collectives, which "
                                            "other members call",
                                            p.ranks.pretty(8), comm);
          note("members of a communicator that skip its collectives");
          continue;
        }
        if (!p.ranks.isSubsetOf(*members)) {
          note(fmt::format("ranks {} call collectives on communicator {} but not all of them belong to it",
                           p.ranks.pretty(8), comm));
          continue;
        }
        if (!reference) {
          reference = &it->second;
          referenceClass = c;
        } else if (reference->tokens != it->second.tokens) {
          note(fmt::format("ranks {} and ranks {} call different sequences of collectives on communicator {}",
                           programs_[referenceClass].ranks.pretty(8), p.ranks.pretty(8), comm));
        }
      }
    }
    // One node per collective of a communicator; every member enters and leaves it.
    for (std::size_t c = 0; c < programs_.size(); ++c)
      for (std::size_t i = 0; i < programs_[c].occs.size(); ++i) {
        const Occ& o = programs_[c].occs[i];
        if (o.collIndex == kNone) continue;
        const std::size_t node = collectiveNode(o.collComm, o.collIndex);
        edge(start(c, i), node);
        // A nonblocking collective returns at once: what waits for the other members is the
        // wait that completes its request.
        if (o.kind == OpKind::ICollective) {
          if (const std::size_t w = completion(c, i); w != kNone) edge(node, w);
          continue;
        }
        edge(node, end(c, i));
      }
    v.channelsAligned = aligned;
    v.graphNodes = static_cast<std::int64_t>(succ_.size());
    if (!undecided.empty()) {
      v.reason = undecided;
      return v;
    }
    if (auto cyc = cycleAt(); cyc != kNone) {
      v.reason = fmt::format("the wait-for graph of the rank classes has a cycle through {} (a ring of blocking calls, "
                             "or a wavefront that ends at the edge of the grid)",
                             nodeText(cyc));
      return v;
    }
    v.kind = CommunicationVerdict::Kind::Proved;
    return v;
  }

  // Resolution of forced wildcards (see resolveForcedWildcards).
  std::map<std::size_t, std::vector<std::pair<RankList, Rank>>> forcedWildcards() {
    std::map<std::size_t, std::vector<std::pair<RankList, Rank>>> out;
    try {
      buildPrograms();
    } catch (const Undecidable&) {
      return out;
    }
    for (const auto& R : programs_) {
      for (const auto& [key, proj] : R.channels) {
        if (key.dir != Dir::Recv || key.offset != kAnySource) continue;
        // Explicit receives on the same communicator and tag compete for the messages.
        bool competing = false;
        for (const auto& [k2, p2] : R.channels)
          competing = competing || (k2.dir == Dir::Recv && k2.comm == key.comm && k2.tag == key.tag && k2.offset != kAnySource);
        if (competing) continue;
        // The offsets whose messages reach each part of the class.
        struct Incoming {
          RankList part;
          Rank sendOffset;
          bool sameShape;
        };
        std::vector<Incoming> incoming;
        for (const auto& S : programs_)
          for (const auto& [sk, sp] : S.channels) {
            if (sk.dir != Dir::Send || sk.comm != key.comm || sk.tag != key.tag) continue;
            const RankList reached = shiftRanks(S.ranks, sk.offset, P_);
            if (!reached.intersects(R.ranks)) continue;
            incoming.push_back({RankList::intersect(reached, R.ranks), sk.offset, sp.tokens == proj.tokens});
          }
        // Refine the class by the parts; a piece reached from exactly one offset, by senders
        // whose sequence pairs with the receives, is resolved.
        std::vector<RankList> pieces{R.ranks};
        for (const auto& in : incoming) {
          std::vector<RankList> next;
          for (const auto& piece : pieces) {
            if (!piece.intersects(in.part)) {
              next.push_back(piece);
              continue;
            }
            RankList inside = RankList::intersect(piece, in.part);
            RankList outside = RankList::subtract(piece, in.part);
            next.push_back(std::move(inside));
            if (!outside.empty()) next.push_back(std::move(outside));
          }
          pieces = std::move(next);
        }
        for (const auto& piece : pieces) {
          std::set<Rank> offsets;
          bool shapes = true;
          for (const auto& in : incoming)
            if (piece.intersects(in.part)) {
              offsets.insert(in.sendOffset);
              shapes = shapes && in.sameShape;
            }
          if (offsets.size() != 1 || !shapes) continue;
          const Rank source = (P_ - *offsets.begin()) % P_;
          std::set<std::size_t> events;
          for (std::size_t o : proj.occs) events.insert(R.occs[o].event);
          for (std::size_t e : events) out[e].push_back({piece, source});
        }
      }
    }
    return out;
  }

  void buildPrograms() {
    if (!programs_.empty()) return;
    for (const auto& cls : rankClasses(trace_)) programs_.push_back(ProgramBuilder(trace_, cls).build());
    unifyLoops(programs_);
    for (auto& p : programs_) project(p);
  }

 private:
  static std::string signedOffset(Rank offset) { return fmt::format("{:+}", offset); }

  void allocateNodes() {
    std::size_t n = 0;
    for (const auto& p : programs_) {
      base_.push_back(n);
      n += 2 * p.occs.size();
    }
    succ_.assign(n, {});
    for (std::size_t c = 0; c < programs_.size(); ++c)
      for (std::size_t i = 0; i < programs_[c].occs.size(); ++i) {
        edge(start(c, i), end(c, i));
        if (i + 1 < programs_[c].occs.size()) edge(end(c, i), start(c, i + 1));
      }
  }

  std::size_t start(std::size_t c, std::size_t i) const { return base_[c] + 2 * i; }
  std::size_t end(std::size_t c, std::size_t i) const { return base_[c] + 2 * i + 1; }

  // The node at which occurrence i of class c has its message (receive) or its partner
  // (synchronous send): the call itself when it blocks, else the wait that completes it.
  std::size_t completion(std::size_t c, std::size_t i) const {
    const Occ& o = programs_[c].occs[i];
    if (o.kind == OpKind::Irecv || o.kind == OpKind::Isend || o.kind == OpKind::ICollective) {
      const std::size_t w = completingWait(programs_[c], i);
      return w == kNone ? kNone : end(c, w);
    }
    return end(c, i);
  }

  std::size_t collectiveNode(std::int64_t comm, std::size_t index) {
    auto [it, inserted] = collNodes_.try_emplace({comm, index}, succ_.size());
    if (inserted) {
      succ_.emplace_back();
      collNodeKeys_.push_back({comm, index});
    }
    return it->second;
  }

  void edge(std::size_t from, std::size_t to) { succ_[from].push_back(to); }

  // A node on a cycle (Kahn's algorithm: the nodes never freed), or kNone.
  std::size_t cycleAt() const {
    std::vector<std::size_t> indeg(succ_.size(), 0);
    for (const auto& s : succ_)
      for (auto t : s) ++indeg[t];
    std::deque<std::size_t> ready;
    for (std::size_t i = 0; i < indeg.size(); ++i)
      if (indeg[i] == 0) ready.push_back(i);
    std::size_t freed = 0;
    while (!ready.empty()) {
      const std::size_t n = ready.front();
      ready.pop_front();
      ++freed;
      for (auto t : succ_[n])
        if (--indeg[t] == 0) ready.push_back(t);
    }
    if (freed == succ_.size()) return kNone;
    for (std::size_t i = 0; i < indeg.size(); ++i)
      if (indeg[i] > 0 && i < (base_.empty() ? 0 : collNodeStart())) return i;
    for (std::size_t i = 0; i < indeg.size(); ++i)
      if (indeg[i] > 0) return i;
    return kNone;
  }

  std::size_t collNodeStart() const {
    std::size_t n = 0;
    for (const auto& p : programs_) n += 2 * p.occs.size();
    return n;
  }

  std::string nodeText(std::size_t node) const {
    if (node >= collNodeStart()) {
      const auto& [comm, index] = collNodeKeys_[node - collNodeStart()];
      return fmt::format("collective {} on communicator {}", index + 1, comm);
    }
    std::size_t c = static_cast<std::size_t>(std::upper_bound(base_.begin(), base_.end(), node) - base_.begin()) - 1;
    const Occ& o = programs_[c].occs[(node - base_[c]) / 2];
    const Event& e = trace_.events[o.event];
    return fmt::format("event {} ({} at {}) on ranks {}", e.id, opName(e.op), trace_.siteLabel(e.site),
                       programs_[c].ranks.pretty(8));
  }

  const Trace& trace_;
  const Rank P_;
  std::vector<ClassProgram> programs_;
  std::vector<std::size_t> base_;
  std::vector<std::vector<std::size_t>> succ_;
  std::map<std::pair<std::int64_t, std::size_t>, std::size_t> collNodes_;
  std::vector<std::pair<std::int64_t, std::size_t>> collNodeKeys_;
};

}  // namespace

CommunicationVerdict analyseCommunication(const Trace& trace) { return Analysis(trace).run(); }

std::int64_t resolveForcedWildcards(Trace& trace) {
  auto resolved = Analysis(trace).forcedWildcards();
  std::int64_t count = 0;
  for (auto& [index, pieces] : resolved) {
    Event& e = trace.events[index];
    ParamValues* src = e.param(Param::Source);
    if (!src) continue;
    // Offsets need a relative list; an absolute one can become relative only if its other
    // values are wildcards (the same in either form).
    if (!src->relative) {
      bool convertible = true;
      for (const auto& g : src->groups)
        for (auto v : g.values) convertible = convertible && v == kAnySource;
      if (!convertible) continue;
      src->relative = true;
    }
    std::vector<ValueGroup> groups;
    for (const auto& g : src->groups) {
      RankList rest = g.ranks;
      std::map<Rank, RankList> byOffset;
      for (const auto& [piece, offset] : pieces) {
        if (!rest.intersects(piece)) continue;
        RankList mine = RankList::intersect(rest, piece);
        rest = RankList::subtract(rest, piece);
        auto [it, inserted] = byOffset.try_emplace(offset, mine);
        if (!inserted) it->second = RankList::unite(it->second, mine);
        ++count;
      }
      if (!rest.empty()) groups.push_back({std::move(rest), g.values});
      for (auto& [offset, ranks] : byOffset) groups.push_back({std::move(ranks), {offset}});
    }
    std::sort(groups.begin(), groups.end(), [](const ValueGroup& a, const ValueGroup& b) { return *a.ranks.first() < *b.ranks.first(); });
    src->groups = std::move(groups);
  }
  return count;
}

Trace foldLoops(const Trace& trace, std::int64_t maxIterations) {
  Trace folded = trace;
  for (auto& e : folded.events)
    for (auto& lv : e.loops)
      for (auto& g : lv.iter)
        for (auto& v : g.values) v = std::min(v, maxIterations);
  return folded;
}

}  // namespace tracegen
