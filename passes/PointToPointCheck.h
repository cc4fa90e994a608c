// The verifier's point-to-point check, run once wildcard receives are resolved.
#pragma once

#include <string>

#include "ir/Trace.h"

namespace tracegen {

// Checks that every point-to-point operation has a peer that posts the matching operation:
// no receive is left with MPI_ANY_SOURCE, every peer is a rank of MPI_COMM_WORLD or
// MPI_PROC_NULL (which needs no partner), and for each
// (communicator, sender, receiver) the sends equal the receives (Sendrecv counts as one of
// each; persistent requests and probes are not messages). Expands every rank with RankCursor,
// so its cost is the number of calls. Throws InputError at the line of an offending event.
void verifyPointToPoint(const Trace& trace, const std::string& fileName);

}  // namespace tracegen
