// The size of what each receive actually receives, from matching it with its send.
//
// MPI lets a receive post a larger buffer than the message that arrives; the trace records
// the posted size. Languages whose receive statement names the message (coNCePTuaL: a
// RECEIVE must name the size of the message it matches, §5.1 item 6 of the language
// reference) need the size that was sent.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "ir/Trace.h"

namespace tracegen::gen {

struct ReceivedBytes {
  // False when the trace expands to more calls than the budget: receive sizes are then the
  // posted sizes.
  bool matched = false;
  // Receive events (also Sendrecv) on which some execution receives other than it posted:
  // the bytes received, as a value list per rank group consumed one value per execution (the
  // same layout as an event parameter). Events not listed receive what they post.
  std::unordered_map<const Event*, ParamValues> byEvent;
  // Messages sent that no receive takes (MPI lets a small one sit in the library's buffers
  // until MPI_Finalize); the first of them described, for a backend that cannot express one.
  std::int64_t unreceived = 0;
  std::string firstUnreceived;  // "rank 0 to rank 1, tag 5, 32 bytes"
};

// Matches every receive of a lowered trace (wildcards resolved, peers in world numbering)
// with its send: per (communicator, sender, receiver), the first unmatched send with a
// compatible tag, MPI's non-overtaking rule. Two walks of per-rank cursors, one for the sends
// and one for the receives; the sends are kept run-length encoded per pair of ranks, so
// memory follows the number of distinct message shapes, not the number of messages.
ReceivedBytes matchReceivedBytes(const Trace& trace, std::int64_t callBudget = 10'000'000);

}  // namespace tracegen::gen
