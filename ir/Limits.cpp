#include "ir/Limits.h"

#include "ir/Checked.h"

#include <cmath>
#include <fmt/format.h>

#include "ir/Diagnostics.h"
#include "ir/Trace.h"

namespace tracegen {

std::optional<std::string> paramValueProblem(Param p, std::int64_t v) {
  switch (p) {
    case Param::Count:
    case Param::RecvCount:
    case Param::RecvCounts:
    case Param::SendCounts:
      // MPI counts are non-negative C ints; a negative one would count negative bytes.
      if (v < 0 || v > kMaxInt32)
        return fmt::format("{} {} is outside 0..{} (MPI counts are non-negative C ints)", paramName(p), v, kMaxInt32);
      return std::nullopt;
    case Param::Tag:
    case Param::RecvTag:
    case Param::Displs:
    case Param::RecvDispls:
    case Param::Color:
      if (v < kMinInt32 || v > kMaxInt32)
        return fmt::format("{} {} is outside {}..{} (MPI's C int)", paramName(p), v, kMinInt32, kMaxInt32);
      return std::nullopt;
    // ---- one-sided communication
    case Param::Win:
      if (v < 1000 || v > kMaxInt32) return fmt::format("win {} is outside 1000..{} (window ids)", v, kMaxInt32);
      return std::nullopt;
    case Param::WinSize:
      // The benchmark allocates the window: at most 1 TiB per rank.
      if (v < 0 || v > (std::int64_t{1} << 40)) return fmt::format("winsize {} is outside 0..2^40 bytes", v);
      return std::nullopt;
    case Param::DispUnit:
      if (v < 1 || v > kMaxInt32) return fmt::format("dispunit {} is outside 1..{}", v, kMaxInt32);
      return std::nullopt;
    case Param::LockType:
      if (v != 1 && v != 2) return fmt::format("locktype {} is neither 1 (exclusive) nor 2 (shared)", v);
      return std::nullopt;
    case Param::Assert:
      if (v < 0 || v > 31) return fmt::format("assert {} is outside 0..31 (the five MPI_MODE_ bits)", v);
      return std::nullopt;
    // ---- MPI-IO
    case Param::File:
      if (v < 1000 || v > kMaxInt32) return fmt::format("file {} is outside 1000..{} (file ids)", v, kMaxInt32);
      return std::nullopt;
    case Param::Offset:
      if (v < 0 || v > (std::int64_t{1} << 50)) return fmt::format("offset {} is outside 0..2^50", v);
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

std::int64_t maxVectorValues(Param p, std::int64_t numRanks) {
  std::int64_t limit = p == Param::Requests ? kRequestRing : saturatingMul(3, numRanks);
  if (p == Param::Edges || p == Param::Destinations) limit = saturatingMul(numRanks, numRanks);
  return std::min(limit, kMaxVectorValues);
}

std::optional<std::string> timeValueProblem(double v) {
  if (!std::isfinite(v)) return std::string("a time that is not a finite number");
  if (v < 0) return fmt::format("negative time {}", v);
  if (v > kMaxTimeValue) return fmt::format("time {} beyond the limit of {:g}", v, kMaxTimeValue);
  return std::nullopt;
}

void requireEmittableTime(double us, const std::string& file, int line, std::string_view what) {
  if (auto why = timeValueProblem(us))
    throw InputError(file, line, fmt::format("{}: {} microseconds", what, *why), {},
                     "compute times must be finite, not negative and at most 1e15 us; with --instruction-rate, "
                     "check the rate");
}

std::vector<Param> requiredParams(Op op) {
  std::vector<Param> out;
  switch (opInfo(op).kind) {
    case OpKind::Send:
    case OpKind::Isend:
    case OpKind::SendInit: out.push_back(Param::Dest); break;
    case OpKind::Recv:
    case OpKind::Irecv:
    case OpKind::RecvInit:
    case OpKind::Probe: out.push_back(Param::Source); break;
    // Persistent requests: which requests a start activates or a free releases.
    case OpKind::Start: out.push_back(op == Op::Startall ? Param::Requests : Param::Request); break;
    case OpKind::RequestFree: out.push_back(Param::Request); break;
    // Matched probes: MPI_Mprobe probes a source (an MPI_Improbe that found nothing may have none).
    case OpKind::MatchedProbe:
      if (op == Op::Mprobe) out.push_back(Param::Source);
      break;
    case OpKind::Sendrecv:
      out.push_back(Param::Dest);
      out.push_back(Param::Source);
      break;
    default: break;
  }
  if (isRooted(op)) out.push_back(Param::Root);
  if (isReduction(op)) out.push_back(Param::ReduceOp);
  switch (op) {
    case Op::ReduceScatter: out.push_back(Param::Datatype); break;
    case Op::CommFree: out.push_back(Param::Comm); break;
    case Op::CommCreate:
    case Op::GroupIncl:
    case Op::GroupExcl:
    case Op::GroupRangeIncl:
    case Op::GroupRangeExcl:
    case Op::GroupFree: out.push_back(Param::Group); break;
    case Op::GroupUnion:
    case Op::GroupIntersection:
    case Op::GroupDifference:
      out.push_back(Param::Group1);
      out.push_back(Param::Group2);
      break;
    default: break;
  }
  return out;
}

std::optional<Param> missingParam(const Event& e) {
  for (Param p : requiredParams(e.op))
    if (!e.param(p)) return p;
  return std::nullopt;
}

void requireParams(const Trace& trace, const std::string& file) {
  for (const Event& e : trace.events)
    if (auto p = missingParam(e))
      throw InputError(file, e.line, fmt::format("event {} ({}) has no '{}' parameter", e.id, opName(e.op), paramName(*p)),
                       {}, fmt::format("a benchmark cannot make an {} call without it", opName(e.op)));
}

void ExpansionBudget::require(std::int64_t steps, int line, const std::string& why) const {
  if (steps <= limit_ - spent_) return;
  throw InputError(fileName_, line,
                   fmt::format("{}: {} would take {} steps, beyond the budget of {}", what_, why, steps, limit_),
                   {}, "tracegen refuses traces whose expansion exceeds this budget (docs/trace-format.md, \"Limits\")");
}

void ExpansionBudget::exceeded(int line) const {
  throw InputError(fileName_, line,
                   fmt::format("{}: the trace expands to more than {} steps (calls, plus one per event for each rank's "
                               "set-up); expansion stopped at this event",
                               what_, limit_), {},
                   "a loop or a number of ranks this large is beyond what tracegen expands call by call "
                   "(docs/trace-format.md, \"Limits\")");
}

}  // namespace tracegen
