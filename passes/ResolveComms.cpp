// resolve-comms: communicators as rank sets, peers and roots in MPI_COMM_WORLD numbering.
//
// Algorithm. Communicator-creating calls (MPI_Comm_split, MPI_Comm_dup, MPI_Comm_create) are
// collected per rank in program order; ScalaTrace numbers a rank's k-th created communicator
// 1000 + k, and so does this pass. The calls are matched across ranks by (parent communicator
// instance, occurrence on it) — MPI requires every member to make them in the same order —
// and a split's members of one colour become one instance of the new id, numbered as MPI
// numbers them: by key, ties by rank in the parent (a dup or create keeps the parent's order).
// An instance whose numbering is not ascending world order gets an explicit order. Communicators
// the trace already describes (recorded traces carry their table) are kept as they are.
// Then every Dest, Source and Root on a communicator other than world is rewritten from
// communicator to world numbering, per rank, regrouping ranks whose rewritten value lists
// agree; offsets stay offsets (now world offsets) so that SPMD patterns stay compressed.
// MPI_ANY_SOURCE and MPI_PROC_NULL name no rank and are kept as they are.
// The cheap case — a trace whose every call is on MPI_COMM_WORLD — only sets the flag.
#include "passes/ResolveComms.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <numeric>
#include <tuple>

#include "ir/Checked.h"
#include "ir/Diagnostics.h"
#include "ir/Limits.h"
#include "ir/RankCursor.h"

namespace tracegen {

namespace {

bool usesOnlyWorld(const Trace& t) {
  for (const auto& e : t.events) {
    if (opInfo(e.op).kind == OpKind::CommCreate) return false;
    if (const ParamValues* c = e.param(Param::Comm))
      for (const auto& g : c->groups)
        for (auto v : g.values)
          if (v != kCommWorld) return false;
  }
  return true;
}

struct Creation {
  const Event* event;
  std::int64_t parent;
  std::int64_t color;
  std::int64_t key;
  std::int64_t newId;
};

class ResolveCommsPass : public Pass {
 public:
  std::string_view name() const override { return "resolve-comms"; }
  std::string_view description() const override {
    return "communicators as rank sets; peers and roots in MPI_COMM_WORLD numbering";
  }
  IrProperties establishedProperties() const override { return {IrProperty::CommsResolved}; }
  // Rewritten peers regroup ranks; only the compute times are untouched.
  IrProperties preservedProperties() const override { return {IrProperty::TimingSummarized}; }

  void run(Trace& trace, PassContext& ctx) override {
    if (trace.worldPeers) return;
    if (usesOnlyWorld(trace)) {
      trace.worldPeers = true;
      return;
    }
    ExpansionBudget budget(ctx.fileName, "resolve-comms (communicators from their creation calls)");
    buildCommTable(trace, ctx, budget);
    rewritePeers(trace, ctx, budget);
    trace.worldPeers = true;
  }

 private:
  void buildCommTable(Trace& trace, PassContext& ctx, ExpansionBudget& budget) {
    const Rank P = trace.numRanks;
    // Per rank that makes any: its communicator creations in program order. Creation calls are
    // usually few and outside loops; each rank's cursor stops as soon as no loop can bring it
    // back to its last creating event, and the whole walk is charged to an expansion budget
    // (a creation inside a loop of 10^12 trips is refused, not expanded for hours).
    std::map<Rank, std::vector<Creation>> created;
    std::vector<std::size_t> creatingEvents;
    for (std::size_t i = 0; i < trace.events.size(); ++i)
      if (opInfo(trace.events[i].op).kind == OpKind::CommCreate) creatingEvents.push_back(i);
    if (creatingEvents.empty()) return;
    // A recorded trace describes every communicator its creation calls make (a `comm` line
    // for each id their newcomm names): nothing to find, so no walk either, which would have
    // expanded every call up to the last creation (samples/apps/topo makes several after its
    // time-step loop: 5 million calls walked for nothing at 400,000 steps).
    const bool described = std::all_of(creatingEvents.begin(), creatingEvents.end(), [&](std::size_t i) {
      const ParamValues* n = trace.events[i].param(Param::NewComm);
      if (!n) return false;
      for (const auto& g : n->groups)
        for (auto v : g.values)
          if (v != kCommNull && !trace.comm(v)) return false;
      return true;
    });
    if (described) {
      ctx.counter("creations-described") = static_cast<std::int64_t>(creatingEvents.size());
      return;
    }
    const int creationLine = trace.events[creatingEvents.front()].line;
    budget.require(saturatingMul(P, static_cast<std::int64_t>(trace.events.size())), creationLine,
                   fmt::format("setting up each of {} ranks over {} events", P, trace.events.size()));
    for (Rank r = 0; r < P; ++r) {
      budget.spend(static_cast<std::int64_t>(trace.events.size()), creationLine);
      RankCursor cursor(trace, r, ctx.fileName);
      auto mine = cursor.eventIndices();
      std::size_t lastCreating = 0;
      bool any = false;
      for (std::size_t k = 0; k < mine.size(); ++k)
        if (opInfo(trace.events[mine[k]].op).kind == OpKind::CommCreate) {
          lastCreating = k;
          any = true;
        }
      if (!any) continue;
      Call call;
      std::int64_t nextId = 1000;
      std::map<std::int64_t, std::int64_t> liveIds;
      while (cursor.next(call)) {
        budget.spend(1, call.event->line);
        if (opInfo(call.op).kind == OpKind::CommCreate) {
          std::int64_t color = 0, key = 0;
          const Event& e = *call.event;
          if (const ParamValues* c = e.param(Param::Color)) color = c->groupFor(r)->values.front();
          if (const ParamValues* k = e.param(Param::Key)) {
            key = k->groupFor(r)->values.front();
            if (k->relative) key = ((key + r) % P + P) % P;
          }
          std::int64_t id = nextId;
          if (const ParamValues* n = e.param(Param::NewComm)) id = n->groupFor(r)->values.front();
          else nextId = 1000 + (nextId - 1000 + 1) % 1000;
          created[r].push_back({&e, call.comm, color, key, id});
        }
        // A creation inside a loop may repeat: stop only once no loop can come back to it.
        if (!cursor.mayReturnTo(lastCreating)) break;
      }
    }
    // Match creations across ranks: the k-th creation on a parent instance.
    struct Key {
      std::int64_t parent;
      Rank parentFirst;
      std::size_t occurrence;
      bool operator<(const Key& o) const {
        return std::tie(parent, parentFirst, occurrence) < std::tie(o.parent, o.parentFirst, o.occurrence);
      }
    };
    // A communicator created from a user communicator (a dup of a row) is matched within
    // the parent's instance, which is known only once the parent is: the table is rebuilt
    // until it stops changing (once per level of nesting).
    auto buildTable = [&](const std::map<std::int64_t, Communicator>& known, bool final) {
    // color -> (key, rank in the parent, world rank)
    std::map<Key, std::map<std::int64_t, std::vector<std::tuple<std::int64_t, Rank, Rank>>>> groups;
    std::map<Key, std::pair<const Event*, std::int64_t>> kinds;
    for (const auto& [r, mine] : created) {
      std::map<std::pair<std::int64_t, Rank>, std::size_t> occurrences;
      for (const auto& c : mine) {
        Rank parentFirst = 0;
        Rank parentRank = r;
        if (c.parent == kCommSelf) {
          parentFirst = r;
          parentRank = 0;
        } else if (c.parent != kCommWorld) {
          const Communicator* pc = trace.comm(c.parent);
          if (auto it = known.find(c.parent); it != known.end()) pc = &it->second;
          if (const std::int64_t i = pc ? pc->instanceIndex(r) : -1; i >= 0) {
            parentFirst = *pc->instances[static_cast<std::size_t>(i)].first();
            parentRank = pc->commRank(static_cast<std::size_t>(i), r);
          }
        }
        std::size_t occ = occurrences[{c.parent, parentFirst}]++;
        Key k{c.parent, parentFirst, occ};
        std::int64_t color = c.event->op == Op::CommSplit ? c.color : 0;
        if (color < 0) continue;  // MPI_UNDEFINED: the rank gets MPI_COMM_NULL
        groups[k][color].push_back({c.event->op == Op::CommSplit ? c.key : 0, parentRank, r});
        kinds[k] = {c.event, c.newId};
      }
    }
    std::map<std::int64_t, Communicator> table;
    for (auto& [k, byColor] : groups) {
      const Event* e = kinds[k].first;
      for (auto& [color, members] : byColor) {
        // MPI's numbering: by key, ties by rank in the parent.
        std::sort(members.begin(), members.end());
        std::vector<Rank> order;
        for (const auto& m : members) order.push_back(std::get<2>(m));
        std::vector<Rank> ranks = order;
        std::sort(ranks.begin(), ranks.end());
        if (final && !std::is_sorted(order.begin(), order.end())) ++ctx.counter("reordered-instances");
        // Each member may have numbered the new communicator differently; record it per id.
        std::map<std::int64_t, std::vector<Rank>> byId;
        for (const auto& m : members) {
          for (const auto& cr : created.at(std::get<2>(m)))
            if (cr.event == e) {
              byId[cr.newId].push_back(std::get<2>(m));
              break;
            }
        }
        for (auto& [id, ids] : byId) {
          Communicator& comm = table[id];
          comm.id = id;
          comm.kind = e->op == Op::CommSplit ? "split" : e->op == Op::CommDup ? "dup" : "create";
          RankList inst = RankList::fromSorted(ranks);
          if (std::find(comm.instances.begin(), comm.instances.end(), inst) == comm.instances.end()) {
            comm.instances.push_back(inst);
            comm.setOrder(comm.instances.size() - 1, order);
            if (final) ++ctx.counter("instances");
          }
        }
      }
    }
    return table;
    };
    std::map<std::int64_t, Communicator> table;
    for (std::size_t round = 0; round <= static_cast<std::size_t>(P) && round < 64; ++round) {
      std::map<std::int64_t, Communicator> next = buildTable(table, false);
      bool stable = next == table;
      table = std::move(next);
      if (stable) break;
    }
    table = buildTable(table, true);
    for (auto& [id, comm] : table) {
      if (trace.comm(id)) continue;  // described by the trace itself
      trace.comms.push_back(std::move(comm));
      ++ctx.counter("communicators");
    }
  }

  void rewritePeers(Trace& trace, PassContext& ctx, ExpansionBudget& budget) {
    const Rank P = trace.numRanks;
    for (auto& e : trace.events) {
      const ParamValues* commParam = e.param(Param::Comm);
      if (!commParam) continue;
      bool onlyWorld = true;
      for (const auto& g : commParam->groups)
        for (auto v : g.values) {
          onlyWorld = onlyWorld && v == kCommWorld;
          // Checked here for every event, not only those that name peers: a collective or a
          // receive from any source on an unknown communicator is as wrong as a send.
          if (v == kCommWorld || v == kCommSelf || v == kCommNull) continue;
          const Communicator* c = trace.comm(v);
          if (!c || c->instances.empty())
            throw InputError(ctx.fileName, e.line,
                             fmt::format("event {} ({}) uses communicator {}, which neither a 'comm' line of the "
                                         "header nor a creation call (MPI_Comm_split, MPI_Comm_dup, ...) explains",
                                         e.id, opName(e.op), v),
                             fmt::format("comm {}", v));
        }
      if (onlyWorld) continue;
      for (Param p : {Param::Dest, Param::Source, Param::Root}) {
        ParamValues* pv = e.param(p);
        if (!pv) continue;
        // Per rank: the world value list, then ranks with equal lists regrouped.
        std::map<std::vector<std::int64_t>, std::vector<Rank>> classes;
        e.ranks.forEach([&](Rank r) {
          const ValueGroup* vg = pv->groupFor(r);
          const ValueGroup* cg = commParam->groupFor(r);
          std::size_t n = std::lcm(vg->values.size(), cg->values.size());  // both lists cycle
          // One step per rank and value: lists of coprime lengths make long cycles.
          budget.spend(1 + static_cast<std::int64_t>(std::min<std::size_t>(n, static_cast<std::size_t>(budget.limit()))), e.line);
          std::vector<std::int64_t> out;
          for (std::size_t i = 0; i < n; ++i) {
            std::int64_t v = vg->values[i % vg->values.size()];
            std::int64_t comm = cg->values[i % cg->values.size()];
            if (v == kAnySource || v == kProcNull) {  // named peers, in no communicator's numbering
              out.push_back(v);
              continue;
            }
            if (pv->relative) v = ((v + r) % P + P) % P;
            Rank world = v;
            if (comm == kCommSelf) {
              world = r;
            } else if (comm != kCommWorld) {
              const Communicator* c = trace.comm(comm);
              const std::int64_t ii = c ? c->instanceIndex(r) : -1;
              const RankList* inst = ii >= 0 ? &c->instances[static_cast<std::size_t>(ii)] : nullptr;
              if (!inst)
                throw InputError(ctx.fileName, e.line,
                                 fmt::format("event {} ({}): rank {} uses communicator {} that no creation call explains",
                                             e.id, opName(e.op), r, comm));
              if (v < 0 || v >= inst->size())
                throw InputError(ctx.fileName, e.line,
                                 fmt::format("event {} ({}): rank {} names {} {} on a communicator of {} ranks", e.id,
                                             opName(e.op), r, paramName(p), v, inst->size()));
              world = c->worldRank(static_cast<std::size_t>(ii), v);  // the communicator's own order
              ++ctx.counter("peers-rewritten");
            }
            out.push_back(pv->relative ? ((world - r) % P + P) % P : world);
          }
          classes[out].push_back(r);
          return true;
        });
        std::vector<ValueGroup> groups;
        for (auto& [values, ranks] : classes) groups.push_back({RankList::fromSorted(ranks), values});
        std::sort(groups.begin(), groups.end(),
                  [](const ValueGroup& a, const ValueGroup& b) { return *a.ranks.first() < *b.ranks.first(); });
        pv->groups = std::move(groups);
      }
    }
  }
};

}  // namespace

std::unique_ptr<Pass> createResolveCommsPass() { return std::make_unique<ResolveCommsPass>(); }

}  // namespace tracegen
