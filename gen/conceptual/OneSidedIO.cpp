// The coNCePTuaL backend's one-sided communication and MPI-IO. coNCePTuaL has no windows and no
// one-sided transfers; the nearest equivalent: MPI_Put and MPI_Accumulate are a message from the
// origin to the target, MPI_Get one from the target to the origin (each with the receive on the
// other side that coNCePTuaL implies), MPI_Win_fence a barrier over the window's communicator;
// window creation, free and the passive-target calls (lock, unlock, flush) leave only a comment.
// Nor has it I/O: file calls leave only a comment, after the computation before them.
#include "gen/conceptual/NcptlBackend.h"

namespace tracegen::gen::conceptual {

void Renderer::oneSided(const CallStmt& c, const RankList& ranks) {
  if (scaleFree()) scaleFreeRefusal(c, "one-sided communication");
  cur_.call = oneSidedStmts(c, ranks, cur_.idx, cur_.detail);
}

void Renderer::fileIo(const CallStmt& c, const RankList&) {
  // coNCePTuaL has no I/O: the computation before the call stays, the time inside it is
  // not reproduced.
  cur_.detail = fmt::format("{}: no I/O in coNCePTuaL, left as a comment", opName(c.op));
  note("coNCePTuaL cannot express MPI-IO: file opens, reads, writes and closes leave only a comment (the "
       "computation before each stays; the time of the I/O itself is not reproduced).");
}

// A one-sided call as its nearest equivalent (the top of this file says which).
std::vector<std::string> Renderer::oneSidedStmts(const CallStmt& c, const RankList& ranks, const std::optional<ExecIndex>& idx,
                                                 std::string& detail) {
  note("coNCePTuaL cannot express one-sided communication: MPI_Put and MPI_Accumulate are messages from the origin "
       "to the target, MPI_Get a message from the target to the origin, MPI_Win_fence a barrier over the window's "
       "communicator; window creation and free, MPI_Win_lock, MPI_Win_unlock and the flushes leave only a comment.");
  switch (c.op) {
    case Op::Put:
    case Op::Accumulate:
      detail = fmt::format("one-sided {} as a message from origin to target", opName(c.op));
      return rmaMessage(c, ranks, idx, false);
    case Op::Get: {
      bool reversed = false;
      std::vector<std::string> out = rmaMessage(c, ranks, idx, true, &reversed);
      detail = reversed ? "one-sided MPI_Get as a message from target to origin"
                        : "one-sided MPI_Get as a message from origin to target (its targets differ by rank)";
      return out;
    }
    case Op::WinFence: {
      CallStmt b = c;
      b.op = Op::Barrier;
      std::vector<std::string> out = collectiveStmts(b, ranks, idx, detail);
      detail = "MPI_Win_fence as a barrier over the window's communicator";
      return out;
    }
    default:
      detail = fmt::format("{}: no one-sided communication in coNCePTuaL, left as a comment", opName(c.op));
      return {};
  }
}

// A transfer's message: sent ASYNCHRONOUSLY with the receive coNCePTuaL implies on the other
// side (no RECEIVE stands for it: the target made no call), then completed by every task. A
// get goes from the target to the origin where every task of the program gets from the same
// offset (the senders are then all tasks too); otherwise, as a put does.
std::vector<std::string> Renderer::rmaMessage(const CallStmt& c, const RankList& ranks, const std::optional<ExecIndex>& idx,
                                              bool get, bool* reversed) {
  std::vector<Case> cs = cases(ranks,
                               {{"dest", param(c, Param::Dest)},
                                {"count", param(c, Param::Count)},
                                {"type", param(c, Param::Datatype)}},
                               idx);
  const RankList everyone = RankList::all(p_.numRanks);
  std::vector<std::string> out = guarded(cs, [&](const Case& k) -> std::vector<std::string> {
    if (!k.values.count("dest")) throw std::invalid_argument("a one-sided transfer without a target");
    Expr dest = k.values.at("dest");
    RankList actors = k.ranks;
    if (get && dest.kind == Expr::Kind::RankOffset && k.ranks == everyone) {
      dest = Expr::rankOffset(((-dest.offset) % p_.numRanks + p_.numRanks) % p_.numRanks);
      if (reversed) *reversed = true;
    }
    Partner to = partner(dest, actors, false);
    if (!to.valid) return {};  // MPI_PROC_NULL: nothing moves
    Desc t = acting(actors, to.relative);
    data d;
    d.set("tasks", t.text);
    d.set("s", t.single ? "S" : "");
    d.set("message", message(bytesOf(k, "count", "type"), std::nullopt));
    d.set("target", to.text);
    return {fill("rma_send", d)};
  });
  if (!out.empty()) out.push_back(awaitStmt(everyone));
  return out;
}

}  // namespace tracegen::gen::conceptual
