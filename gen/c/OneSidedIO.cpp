// The C backend's one-sided communication (RMA windows) and MPI-IO (files).
#include "gen/c/CBackend.h"

namespace tracegen::gen::cgen {

// ---- one-sided communication: windows by the trace's number (1000 + creation order on the
// rank) in win_table; MPI_Win_create's memory is allocated at the recorded size. Transfers
// use the message buffers (puts and accumulates read send_buf, gets write recv_buf) at target
// displacement 0: the window holds at least the target's access, as the application's did.
Lowered CWriter::window(const CallCtx& x) {
  const Expr& id = need(x.c, Param::Win);
  Needs needs{.windows = true};
  forEachConst(id, [&](double v) { needs.maxWinId = std::max(needs.maxWinId, asInt(v)); });
  return {needs.take(expr(id, intStyle(), at(x, "win"))), needs};
}

// MPI_MODE_ bits as the trace numbers them (docs/trace-format.md): 1 nocheck, 2 nostore,
// 4 noput, 8 noprecede, 16 nosucceed.
Lowered CWriter::assertion(const CallCtx& x) {
  const Expr* e = param(x.c, Param::Assert);
  if (!e) return std::string("0");
  return expr(*e, {"int", [](double v) {
                     static const char* const names[] = {"MPI_MODE_NOCHECK", "MPI_MODE_NOSTORE", "MPI_MODE_NOPUT",
                                                         "MPI_MODE_NOPRECEDE", "MPI_MODE_NOSUCCEED"};
                     const std::int64_t bits = asInt(v);
                     std::vector<std::string> on;
                     for (int b = 0; b < 5; ++b)
                       if (bits & (std::int64_t{1} << b)) on.push_back(names[b]);
                     return on.empty() ? std::string("0") : fmt::format("{}", fmt::join(on, " | "));
                   }},
              at(x, "assert"));
}

// count and datatype of a buffer, without marking the communicator used (comm(x) does): the
// window and file calls name their communicator only where they are made.
Needs CWriter::buffer(const CallCtx& x, mus::data& d) {
  Needs needs;
  d.set("count", needs.take(count(x, param(x.c, Param::Count), "count")));
  d.set("datatype", needs.take(datatype(x, need(x.c, Param::Datatype), "datatype")));
  return needs;
}

Lowered CWriter::oneSidedText(const CallCtx& x, mus::data& d) {
  const CallStmt& c = x.c;
  Needs needs;
  d.set("win", needs.take(window(x)));
  auto target = [&] { d.set("dest", needs.take(peer(x, need(c, Param::Dest), "dest"))); };
  switch (c.op) {
    case Op::WinCreate:
    case Op::WinAllocate: {
      const Expr* size = param(c, Param::WinSize);
      const Expr* unit = param(c, Param::DispUnit);
      d.set("size", size ? needs.take(expr(*size, {"long long", [](double v) { return fmt::format("{}LL", asInt(v)); }},
                                           at(x, "winsize")))
                         : "0LL");
      d.set("dispunit", unit ? needs.take(expr(*unit, intStyle(), at(x, "dispunit"))) : "1");
      d.set("comm", needs.take(comm(x)));
      (c.op == Op::WinCreate ? needs.winCreate : needs.winAllocate) = true;
      return {render(c.op == Op::WinCreate ? "call/win_create" : "call/win_allocate", d), needs};
    }
    case Op::WinFree:
      needs.winFree = true;
      return {render("call/win_free", d), needs};
    case Op::WinFence:
    case Op::WinLockAll:
      d.set("assert", needs.take(assertion(x)));
      return {render(c.op == Op::WinFence ? "call/win_fence" : "call/win_lock_all", d), needs};
    case Op::WinLock: {
      target();
      d.set("assert", needs.take(assertion(x)));
      const Expr* type = param(c, Param::LockType);
      d.set("locktype", type ? needs.take(expr(*type, {"int", [](double v) {
                                                         return asInt(v) == 2 ? std::string("MPI_LOCK_SHARED")
                                                                              : std::string("MPI_LOCK_EXCLUSIVE");
                                                       }},
                                               at(x, "locktype")))
                             : "MPI_LOCK_EXCLUSIVE");
      return {render("call/win_lock", d), needs};
    }
    case Op::WinUnlock:
    case Op::WinFlush:
    case Op::WinFlushLocal:
      target();
      return {render("call/win_target", d), needs};
    case Op::WinUnlockAll:
    case Op::WinFlushAll:
      return {render("call/win_sync", d), needs};
    case Op::Put:
    case Op::Get:
    case Op::Accumulate:
      needs |= buffer(x, d);
      needs |= receiveSide(x, d);
      target();
      d.set("buf", c.op == Op::Get ? "recv_buf" : "send_buf");
      // MPI_Accumulate takes predefined operators only: no comment of a user-defined one.
      if (c.op == Op::Accumulate) setReduceOp(x, d, needs);
      return {render(c.op == Op::Accumulate ? "call/accumulate" : "call/rma", d), needs};
    default:
      break;
  }
  throw std::logic_error(fmt::format("unhandled one-sided operation {}", opName(c.op)));
}

// ---- MPI-IO: files by the trace's number (1000 + open order on the rank) in file_table. The
// benchmark opens a scratch file of its own for each (scratch_name: $TMPDIR or the working
// directory, named after the job), deleted on close, and reads and writes the traced counts and
// datatypes at the traced offsets, from the message buffers.
Lowered CWriter::fileIoText(const CallCtx& x, mus::data& d) {
  const CallStmt& c = x.c;
  const Expr& id = need(c, Param::File);
  Needs needs{.files = true};
  forEachConst(id, [&](double v) { needs.maxFileId = std::max(needs.maxFileId, asInt(v)); });
  d.set("file", needs.take(expr(id, intStyle(), at(x, "file"))));
  switch (c.op) {
    case Op::FileOpen:
      d.set("comm", needs.take(comm(x)));
      return {render("call/file_open", d), needs};
    case Op::FileClose:
      return {render("call/file_close", d), needs};
    default:
      break;
  }
  needs |= buffer(x, d);
  const bool write = c.op == Op::FileWrite || c.op == Op::FileWriteAt || c.op == Op::FileWriteAll ||
                     c.op == Op::FileWriteAtAll;
  d.set("buf", write ? "send_buf" : "recv_buf");
  if (const Expr* off = param(c, Param::Offset)) {
    d.set("offset",
          needs.take(expr(*off, {"long long", [](double v) { return fmt::format("{}LL", asInt(v)); }}, at(x, "offset"))));
    return {render("call/file_io_at", d), needs};
  }
  if (c.op == Op::FileReadAt || c.op == Op::FileWriteAt || c.op == Op::FileReadAtAll || c.op == Op::FileWriteAtAll) {
    d.set("offset", "0LL");
    return {render("call/file_io_at", d), needs};
  }
  return {render("call/file_io", d), needs};
}

}  // namespace tracegen::gen::cgen
