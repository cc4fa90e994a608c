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
//
// What the passes found (PassContext): `everySendReceived`, every receive matched and no
// message left unreceived; `receivesTakeWhatTheyPost`, their simulation of the run matched
// every receive with a message of the size it posts. With the first, and the second or the
// compressed form's word for it (sizesFollowPosts), the result comes without expanding a call,
// whatever the trace's size (the 16-rank LU class C trace: 3.9 million calls).
ReceivedBytes matchReceivedBytes(const Trace& trace, std::int64_t callBudget = 10'000'000,
                                 bool everySendReceived = false, bool receivesTakeWhatTheyPost = false);

// Whether every receive of the trace takes the size it posts, shown on the compressed form:
// the sends that could reach a receive (the same communicator and a compatible tag, whatever
// their ranks and peers: a superset) all have the one size it posts. False where that is not
// shown, and for what the shape does not decide (persistent requests, matched probes, a
// receive left with MPI_ANY_SOURCE). Costs the events' distinct parameter values.
bool sizesFollowPosts(const Trace& trace);

}  // namespace tracegen::gen
